import type { RankingFacts, RecalledMemory } from "@umo/core"

/** Records kept, and the most content they may hold in all (characters). */
const recordsKept = 5_000
const contentKept = 16_000_000
/** A record longer than this (a document) is read each time: it would crowd out hundreds of others. */
const longestKept = 50_000

const key = (accountId: string, umoId: string) => `${accountId}\u001f${umoId}`

/**
 * What search returned of memories lately (`RecalledMemory`), so the next search that returns them
 * skips the database (a round trip of a few milliseconds, the largest part of a search after its
 * query embedding) where the in-process index does not hold them: while it loads, without it
 * (`UMO_SEARCH_INDEX=false`), and for long documents. Of that, only `superseded_by` changes after a capture, and a memory leaves
 * when it is deleted: a kept record is used only when the search's own view of it — the ranking
 * facts the index read as of this search, deletions and supersessions by other processes
 * included — holds it still, with the same `superseded_by`; otherwise it is read again. Least
 * recently used go first.
 */
export class RecordCache {
  private readonly records = new Map<string, RecalledMemory>()
  private content = 0

  /** The kept records among `umoIds` that `facts` (this search's view) shows unchanged. */
  current(
    accountId: string,
    umoIds: ReadonlyArray<string>,
    facts: ReadonlyMap<string, RankingFacts>
  ): Map<string, RecalledMemory> {
    const found = new Map<string, RecalledMemory>()
    for (const umoId of umoIds) {
      const held = this.records.get(key(accountId, umoId))
      if (held === undefined) continue
      const seen = facts.get(umoId)
      if (seen === undefined || seen.superseded_by !== held.superseded_by) {
        this.drop(accountId, umoId)
        continue
      }
      // Used again: it goes to the back of the line.
      this.records.delete(key(accountId, umoId))
      this.records.set(key(accountId, umoId), held)
      found.set(umoId, held)
    }
    return found
  }

  /** Keeps records just read, dropping the least recently used past the limits. */
  keep(accountId: string, records: ReadonlyArray<RecalledMemory>): void {
    for (const record of records) {
      // One that expires is read each time: its expiry may be moved (refreshed) by another process.
      if (record.content.length > longestKept || record.expires_at !== null) continue
      this.drop(accountId, record.umo_id)
      this.records.set(key(accountId, record.umo_id), record)
      this.content += record.content.length
    }
    for (const [oldest, record] of this.records) {
      if (this.records.size <= recordsKept && this.content <= contentKept) break
      this.records.delete(oldest)
      this.content -= record.content.length
    }
  }

  private drop(accountId: string, umoId: string): void {
    const held = this.records.get(key(accountId, umoId))
    if (held === undefined) return
    this.records.delete(key(accountId, umoId))
    this.content -= held.content.length
  }
}
