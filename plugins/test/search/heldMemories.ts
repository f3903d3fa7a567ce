import fc from "fast-check"
import type { HeldMemory } from "../../src/search/MemoryEntries.js"

const scope = fc.option(fc.constantFrom("alice", "bob", "carol", "dé", "🙂"), { nil: null })
const time = fc.oneof(
  // Times whose ISO 8601 form is toISOString's, and ones written otherwise (kept as given).
  fc
    .integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2100, 0, 1) })
    .map((ms) => new Date(ms).toISOString()),
  fc.constantFrom("2024-01-02T03:04:05Z", "2024-01-02T03:04:05.000+02:00", "not a time")
)
/** Memories as the index holds them: any text, scopes, times (some not as toISOString writes them), lists and metadata. */
export const memory: fc.Arbitrary<HeldMemory> = fc.record({
  umo_id: fc.uuid().map((id) => id.toLowerCase()),
  content: fc.option(fc.string({ unit: "grapheme", maxLength: 300 }), { nil: null }),
  summary: fc.option(fc.string({ unit: "grapheme", maxLength: 80 }), { nil: null }),
  user_id: scope,
  agent_id: scope,
  session_id: scope,
  source: scope,
  timestamp: time,
  created_at: time,
  metadata: fc.dictionary(
    fc.string({ maxLength: 6 }),
    fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 })
    )
  ),
  categories: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
  superseded_by: fc.option(fc.uuid(), { nil: null }),
  entities: fc.array(
    fc.record({
      text: fc.string({ maxLength: 10 }),
      type: fc.constantFrom("person", "place"),
      start: fc.nat(99),
      end: fc.nat(99)
    }),
    {
      maxLength: 3
    }
  ),
  facts: fc.array(
    fc.record({
      slot: fc.string({ maxLength: 10 }),
      value: fc.string({ maxLength: 10 }),
      mode: fc.constantFrom("set", "add")
    }),
    { maxLength: 3 }
  )
})
