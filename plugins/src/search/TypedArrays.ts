/** A typed array of the index: what `grown` makes larger. */
type Grown = Int8Array | Uint8Array | Uint16Array | Int32Array | Float32Array | Float64Array

/**
 * `array` with room for `length` values at least, grown by doubling (the new room filled with
 * `fill`), or `array` itself when it has the room. Growing copies the array: where a million
 * memories would make that copy hundreds of megabytes, room is made at once (a load's count) or
 * kept in blocks (`TextPostings.held`, `MemoryEntries`' pages).
 */
export const grown = <T extends Grown>(array: T, length: number, fill = 0): T => {
  if (length <= array.length) return array
  const bigger = new (array.constructor as new (n: number) => T)(Math.max(length, array.length * 2))
  bigger.set(array)
  if (fill !== 0) bigger.fill(fill, array.length)
  return bigger
}
