/** A memory, an event, a history entry or an entity as a Mem0 client got it: JSON, read loosely. */
export interface Shown {
  readonly id: string
  readonly memory: string
  readonly event: string
  readonly type: string
  readonly name: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly [key: string]: unknown
}

/** A Mem0 answer, read loosely: each test says what it must hold. */
export interface Answer {
  readonly results: ReadonlyArray<Shown>
  readonly detail: string
  readonly [key: string]: unknown
}
