/** A typed array of the index: what `grown` makes larger. */
type Grown = Int32Array | Float64Array | Uint8Array

/**
 * `array` with room for `length` values at least, grown by doubling (the new room filled with
 * `fill`), or `array` itself when it has the room. Growing copies the array: what a million
 * memories may fill is kept in blocks instead (see `TextPostings`, `MemoryEntries`).
 */
export const grown = <T extends Grown>(array: T, length: number, fill = 0): T => {
  if (length <= array.length) return array
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(length, array.length * 2))
  bigger.set(array)
  if (fill !== 0) bigger.fill(fill, array.length)
  return bigger
}
