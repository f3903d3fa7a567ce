/** Reading fields of a JSON response defensively: a missing field reads as empty, not as a crash. */

/** A JSON object as the service sent it. */
export type Raw = Readonly<Record<string, unknown>>

export const str = (raw: Raw, key: string): string => String(raw[key] ?? "")
export const num = (raw: Raw, key: string): number => Number(raw[key] ?? 0)
export const optStr = (raw: Raw, key: string): string | null =>
  typeof raw[key] === "string" ? raw[key] : null
export const optNum = (raw: Raw, key: string): number | null =>
  typeof raw[key] === "number" ? raw[key] : null
export const list = (raw: Raw, key: string): ReadonlyArray<Raw> => (Array.isArray(raw[key]) ? raw[key] : [])
export const obj = (raw: Raw, key: string): Raw =>
  typeof raw[key] === "object" && raw[key] !== null ? (raw[key] as Raw) : {}
export const strings = (raw: Raw, key: string): ReadonlyArray<string> =>
  Array.isArray(raw[key]) ? raw[key].filter((x): x is string => typeof x === "string") : []
