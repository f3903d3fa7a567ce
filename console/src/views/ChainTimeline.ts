/**
 * The account's hash chain as a timeline, newest first (`GET /v1/account/chain`, paged with
 * `before`): each capture, supersession, deletion, repeat and re-embedding, the memory it concerns, whether its Ed25519
 * signature verifies in this browser under the pinned keys, and whether it links to the entry before it.
 * @module
 */
import { type Jwk, type LedgerEntry, trustedKeys, verifyEntry } from "@umo/client"
import { useCallback, useEffect, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime, shortHash } from "../format.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"
import { useInfiniteScroll } from "../useInfiniteScroll.js"

interface CheckedEntry {
  readonly entry: LedgerEntry
  readonly signed: boolean
}

/** Each kind of entry: its name, and what it says of the memory. */
const kinds: Record<string, readonly [string, string]> = {
  capture: ["Capture", "Captured"],
  supersede: ["Supersession", "Superseded"],
  delete: ["Deletion", "Forgot"],
  repeat: ["Repeat", "Captured again"],
  reembed: ["Re-embedding", "Embedded again, with another model"]
}

const EntryItem = (props: { item: CheckedEntry; older: LedgerEntry | undefined }) => {
  const { entry, signed } = props.item
  const [kind, verb] = kinds[entry.kind] ?? [entry.kind, "Recorded"]
  // The older entry is on this page or the next: unknown until it is loaded (and none before #1).
  const linked = props.older === undefined ? null : entry.prev_hash === props.older.entry_hash
  return html`
    <li class=${`entry entry-${entry.kind.replace(/[^a-z]/g, "")}`} data-testid="chain-entry">
      <div class="entry-head">
        <span class="kind">${kind}</span>
        <span>#${entry.seq}</span>
        <time datetime=${entry.recorded_at} title=${entry.recorded_at}>${formatTime(entry.recorded_at)}</time>
        <span class=${`badge ${signed ? "badge-ok" : "badge-failed"}`}>
          ${signed ? "✓ Signature verified" : "✗ Signature does not verify"}
        </span>
      </div>
      <p>
        ${`${verb} `}<${Link} href=${memoryHref(entry.umo_id)}><code>${entry.umo_id}</code><//>
        ${
          typeof entry.superseded_by === "string"
            ? html` by <${Link} href=${memoryHref(entry.superseded_by)}><code>${entry.superseded_by}</code><//>`
            : null
        }
      </p>
      <p class="meta">
        entry <code title=${entry.entry_hash}>${shortHash(entry.entry_hash)}</code> · previous
        <code title=${entry.prev_hash}>${shortHash(entry.prev_hash)}</code>
        ${linked === null ? null : linked ? " · links to the entry before" : html` · <strong class="error-text">does not link to #${props.older?.seq}</strong>`}
      </p>
    </li>
  `
}

export const ChainTimeline = () => {
  const { client, pinned } = useSession()
  const [trusted, setTrusted] = useState<Map<string, Jwk> | null>(null)
  const [items, setItems] = useState<ReadonlyArray<CheckedEntry>>([])
  const [before, setBefore] = useState<number | undefined>(undefined)
  const [hasMore, setHasMore] = useState(true)
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    trustedKeys(pinned).then(setTrusted, (failure) => setError(describeError(failure)))
  }, [pinned])

  const loadMore = useCallback(async () => {
    if (trusted === null || loading || !hasMore) return
    setLoading(true)
    try {
      const page = await client.chain({ limit: 25, ...(before === undefined ? {} : { before }) })
      const checked = await Promise.all(
        page.entries.map(async (entry) => ({ entry, signed: await verifyEntry(entry, trusted) }))
      )
      setItems([...items, ...checked])
      setBefore(page.nextBefore ?? undefined)
      setHasMore(page.hasMore && page.nextBefore !== null)
    } catch (failure) {
      setError(describeError(failure))
      setHasMore(false)
    } finally {
      setLoading(false)
    }
  }, [client, before, hasMore, items, loading, trusted])

  const sentinel = useInfiniteScroll(loadMore, trusted !== null && hasMore && !loading && error === null)
  const failures = items.filter((item) => !item.signed).length

  return html`
    <h1 tabindex="-1">Chain</h1>
    <p class="hint">
      Every capture, supersession and deletion in this account, newest first. Entries hold hashes, never content, so
      the chain stays verifiable after a memory is forgotten.
    </p>
    <p role="status" class="summary-line">
      ${
        items.length === 0 && loading
          ? "Loading…"
          : `${items.length} ${items.length === 1 ? "entry" : "entries"} shown${failures === 0 ? "" : `, ${failures} failing verification`}`
      }
    </p>
    ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
    <ol class="timeline" aria-label="Chain entries, newest first">
      ${items.map((item, i) => html`<${EntryItem} key=${item.entry.seq} item=${item} older=${items[i + 1]?.entry} />`)}
    </ol>
    ${!loading && !hasMore && items.length === 0 && error === null ? html`<p>The chain is empty.</p>` : null}
    <div ref=${sentinel} class="sentinel">
      ${
        hasMore && items.length > 0
          ? html`<button type="button" class="secondary" onClick=${loadMore} disabled=${loading}>
            ${loading ? "Loading…" : "Load older entries"}
          </button>`
          : null
      }
    </div>
  `
}
