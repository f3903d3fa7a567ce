import { compareCodePoints } from "@umo/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type HeldMemory, MemoryEntries } from "../../src/search/MemoryEntries.js"
import { memory } from "./heldMemories.js"

type Step =
  | { readonly kind: "add"; readonly memory: HeldMemory; readonly chunks: number }
  | { readonly kind: "remove"; readonly pick: number }
  | { readonly kind: "supersede"; readonly pick: number; readonly by: string }

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("add" as const), memory, chunks: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("remove" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("supersede" as const), pick: fc.nat(), by: fc.uuid() })
  }
)

describe("MemoryEntries", () => {
  it("gives back every live memory as it was added, finds it by id, and forgets removed ones (property)", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.nat(200), (steps, room) => {
        const entries = new MemoryEntries(room)
        const held = new Map<string, { slot: number; memory: HeldMemory; first: number; chunks: number }>()
        const gone = new Set<string>()
        let chunk = 0
        for (const s of steps) {
          if (s.kind === "add") {
            if (held.has(s.memory.umo_id)) {
              expect(() => entries.add(s.memory, chunk, s.chunks)).toThrow()
              continue
            }
            const slot = entries.add(s.memory, chunk, s.chunks)
            held.set(s.memory.umo_id, { slot, memory: s.memory, first: chunk, chunks: s.chunks })
            gone.delete(s.memory.umo_id)
            chunk += s.chunks
          } else if (held.size > 0) {
            const [id, h] = [...held][s.pick % held.size]!
            if (s.kind === "remove") {
              entries.remove(h.slot)
              held.delete(id)
              gone.add(id)
            } else {
              entries.supersede(h.slot, s.by)
              held.set(id, { ...h, memory: { ...h.memory, superseded_by: s.by } })
            }
          }
        }
        expect(entries.size).toBe(held.size)
        expect([...entries.liveSlots()]).toEqual([...held.values()].map((h) => h.slot).sort((a, b) => a - b))
        for (const id of gone) expect(entries.slotOf(id)).toBeUndefined()
        for (const [id, h] of held) {
          expect(entries.slotOf(id)).toBe(h.slot)
          expect(entries.isLive(h.slot)).toBe(true)
          expect(entries.memory(h.slot)).toEqual(h.memory)
          expect(entries.umoId(h.slot)).toBe(id)
          expect(entries.firstChunk(h.slot)).toBe(h.first)
          expect(entries.chunkCount(h.slot)).toBe(h.chunks)
          expect(entries.holdsText(h.slot)).toBe(h.memory.content !== null && h.memory.summary !== null)
          const filterable = entries.filterable(h.slot)
          for (const field of [
            "user_id",
            "agent_id",
            "session_id",
            "source",
            "timestamp",
            "created_at"
          ] as const)
            expect(filterable[field]).toBe(h.memory[field])
          expect(filterable.metadata).toEqual(h.memory.metadata)
          expect(filterable.categories).toEqual(h.memory.categories)
        }
        const live = [...held.values()]
        for (let i = 1; i < live.length; i++) {
          const [a, b] = [live[i - 1]!, live[i]!]
          expect(Math.sign(entries.compareIds(a.slot, b.slot))).toBe(
            Math.sign(compareCodePoints(a.memory.umo_id, b.memory.umo_id))
          )
        }
      }),
      { numRuns: 200 }
    )
  })

  it("keeps each memory's texts with its id as its arrays grow", () => {
    const entries = new MemoryEntries()
    const base = fc.sample(memory, { numRuns: 1, seed: 2 })[0]!
    const id = (i: number) => `0190a000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`
    for (let i = 0; i < 20_000; i++) entries.add({ ...base, umo_id: id(i), content: `memory ${i}` }, i, 1)
    for (let i = 0; i < 20_000; i += 2) entries.remove(entries.slotOf(id(i))!)
    for (let i = 0; i < 20_000; i++) expect(entries.slotOf(id(i))).toBe(i % 2 === 0 ? undefined : i)
    expect(entries.memory(19_999).content).toBe("memory 19999")
  })
})
