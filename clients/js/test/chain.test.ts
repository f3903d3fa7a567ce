import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type ChainPage,
  type LedgerEntry,
  UMOClient,
  type UMOMemory,
  ValidationError,
  verifyEntry
} from "@umo/client"
import { openMemory } from "@umo/memory"
import { UseLiteEmbedder } from "@umo/plugins"
import { afterAll, describe, expect, it } from "vitest"
import { keys, startListening } from "../../../server/test/support/TestServer.js"

const dataDir = mkdtempSync(join(tmpdir(), "umo-chain-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const genesisHash = "0".repeat(64)

/** Every page of the chain, following `nextBefore`. */
const walk = async (umo: UMOMemory, limit: number): Promise<Array<ChainPage>> => {
  const pages: Array<ChainPage> = []
  for (let before: number | undefined; ; ) {
    const page = await umo.chain({ limit, ...(before === undefined ? {} : { before }) })
    pages.push(page)
    if (page.nextBefore === null) return pages
    before = page.nextBefore
  }
}

/** What a chain call answered, as data: its wire object, or the error's class, status and detail. */
const outcome = (call: Promise<ChainPage>) =>
  call.then(
    (page) => page.raw,
    (e: ValidationError) => ({ error: e.name, status: e.status, detail: e.detail })
  )

const calls = (umo: UMOMemory) => ({
  all: () => umo.chain(),
  first: () => umo.chain({ limit: 2 }),
  second: () => umo.chain({ limit: 2, before: 3 }),
  limitZero: () => umo.chain({ limit: 0 }),
  limitTooLarge: () => umo.chain({ limit: 101 }),
  beforeZero: () => umo.chain({ before: 0 })
})

describe("chain", () => {
  const http: Record<string, unknown> = {}

  it("UMOClient pages the chain newest first, and each entry verifies against the pinned keys", async () => {
    const server = await startListening({ dataDir })
    try {
      const alice = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.alice })
      const bob = new UMOClient({ baseUrl: server.baseUrl, apiKey: keys.bob })
      const pinned = await alice.signingKeys()
      const ids: Array<string> = []
      for (const text of ["Ada wrote a program.", "Grace found a moth.", "Alan broke a code."])
        ids.push((await alice.capture(text)).umoId)
      await alice.forget(ids[0]!)

      const pages = await walk(alice, 3)
      expect(pages.map((p) => [p.entries.length, p.hasMore, p.nextBefore])).toEqual([
        [3, true, 2],
        [1, false, null]
      ])
      const entries: Array<LedgerEntry> = pages.flatMap((p) => [...p.entries])
      expect(entries.map((e) => [e.seq, e.kind, e.umo_id])).toEqual([
        [4, "delete", ids[0]],
        [3, "capture", ids[2]],
        [2, "capture", ids[1]],
        [1, "capture", ids[0]]
      ])
      for (const [i, entry] of entries.entries()) {
        expect(await verifyEntry(entry, pinned), `seq ${entry.seq}`).toBe(true)
        expect(entry.prev_hash).toBe(entries[i + 1]?.entry_hash ?? genesisHash)
      }
      // A changed entry, or one checked against another key, does not verify.
      expect(await verifyEntry({ ...entries[1]!, umo_id: ids[1]! }, pinned)).toBe(false)
      expect(await verifyEntry(entries[1]!, { kty: "OKP", crv: "Ed25519", x: "A".repeat(43) })).toBe(false)

      expect((await bob.chain()).entries).toEqual([])
      const refused = await alice.chain({ limit: 0 }).catch((e) => e)
      expect(refused).toBeInstanceOf(ValidationError)
      expect(refused.status).toBe(422)
      for (const [name, call] of Object.entries(calls(alice))) http[name] = await outcome(call())
    } finally {
      await server.stop()
    }
    expect(http.first).toMatchObject({ has_more: true, next_before: 3 })
    expect(http.beforeZero).toMatchObject({ error: "ValidationError", status: 422 })
  })

  it("openMemory answers the same on the same data: pages and errors alike", async () => {
    const umo = await openMemory({ dataDir, account: "alice", embedder: UseLiteEmbedder.layer() })
    try {
      for (const [name, call] of Object.entries(calls(umo)))
        expect(await outcome(call()), name).toEqual(http[name])
    } finally {
      await umo.close()
    }
  })
})
