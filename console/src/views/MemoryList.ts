/**
 * The memories, newest first by their own time (when it was said, the API's order; the capture
 * time beside it), a page at a time as the list is scrolled (offset pagination of
 * `GET /v1/memories`), within the scope of the address (user, agent, session, superseded or not)
 * and optionally of one source. Each row shows whose memory it is and what superseded it. What it
 * lists can be exported, and a file imported (Transfers.ts).
 * @module
 */
import type { MemorySummary } from "@umo/client"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime, percent } from "../format.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"
import { describeScope, scopeQuery, selectionOf, useScope } from "../Scope.js"
import { useInfiniteScroll } from "../useInfiniteScroll.js"
import { ScopeBadges, SupersededNote } from "./ScopeBadges.js"
import { ScopeBar } from "./ScopeBar.js"
import { Transfers } from "./Transfers.js"

const pageSize = 20

interface Listing {
  readonly items: ReadonlyArray<MemorySummary>
  readonly total: number
  readonly hasMore: boolean
}

const empty: Listing = { items: [], total: 0, hasMore: true }

const Row = (props: { item: MemorySummary; query: string }) => {
  const { item, query } = props
  return html`
    <li class=${item.supersededBy === null ? undefined : "superseded"}>
      <${Link} href=${memoryHref(item.umoId) + query}>${item.summary || "(no summary)"}<//>
      <div class="meta">
        <time datetime=${item.timestamp} title=${`said ${item.timestamp}`} data-testid="memory-time"
          >${formatTime(item.timestamp)}</time
        >
        <span class="captured"
          >captured <time datetime=${item.createdAt} title=${item.createdAt}>${formatTime(item.createdAt)}</time></span
        >
        ${item.source === null ? null : html`<span class="chip">${item.source}</span>`}
        <${ScopeBadges} item=${item} />
        <span>quality ${percent(item.qualityScore)}</span>
        <${SupersededNote} item=${item} query=${query} />
      </div>
    </li>
  `
}

export const MemoryList = () => {
  const { client } = useSession()
  const [scope, setScope] = useScope()
  const [source, setSource] = useState("")
  const [draft, setDraft] = useState("")
  // Bumped by an erasure or an import: the same scope, listed anew.
  const [epoch, setEpoch] = useState(0)
  const [listing, setListing] = useState<Listing>(empty)
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const query = scopeQuery(scope)
  // The filter a response was asked for: one that answers after the filter changed is dropped.
  const filter = `${query} ${source} ${epoch}`
  const current = useRef(filter)
  current.current = filter

  const loadMore = useCallback(async () => {
    if (loading || !listing.hasMore) return
    setLoading(true)
    const asked = filter
    try {
      const page = await client.list({
        limit: pageSize,
        offset: listing.items.length,
        ...selectionOf(scope),
        ...(source === "" ? {} : { source })
      })
      if (current.current !== asked) return
      // Captures made meanwhile shift the offsets: an item may come twice, and is shown once.
      const known = new Set(listing.items.map((item) => item.umoId))
      setListing({
        items: [...listing.items, ...page.items.filter((item) => !known.has(item.umoId))],
        total: page.totalCount,
        hasMore: page.hasMore && page.items.length > 0
      })
      setError(null)
    } catch (failure) {
      setError(describeError(failure))
      setListing({ ...listing, hasMore: false })
    } finally {
      setLoading(false)
    }
  }, [client, listing, loading, source, scope, filter])

  const sentinel = useInfiniteScroll(
    loadMore,
    listing.hasMore && !loading && error === null,
    listing === empty
  )

  useEffect(() => {
    setListing(empty)
    setError(null)
  }, [filter])

  const applyFilter = (event: SubmitEvent) => {
    event.preventDefault()
    setSource(draft.trim())
  }
  const sources = [...new Set(listing.items.map((item) => item.source).filter((s) => s !== null))]
  const named = describeScope(scope)
  const narrowed = [
    named === "" ? "" : ` of ${named}`,
    source === "" ? "" : ` from “${source}”`,
    scope.includeSuperseded ? ", superseded ones included" : ""
  ].join("")

  return html`
    <h1 tabindex="-1">Memories</h1>
    <${ScopeBar} scope=${scope} onScope=${setScope} onErased=${() => setEpoch(epoch + 1)} />
    <${Transfers} scope=${scope} source=${source} onImported=${() => setEpoch((n) => n + 1)} />
    <form class="toolbar" role="search" aria-label="Filter memories" onSubmit=${applyFilter}>
      <label for="source-filter">Source</label>
      <input
        id="source-filter"
        list="known-sources"
        value=${draft}
        placeholder="any source"
        onInput=${(event: Event) => setDraft((event.target as HTMLInputElement).value)}
      />
      <datalist id="known-sources">${sources.map((s) => html`<option key=${s} value=${s} />`)}</datalist>
      <button type="submit">Filter</button>
      ${
        source === ""
          ? null
          : html`<button
            type="button"
            class="secondary"
            onClick=${() => {
              setDraft("")
              setSource("")
            }}
          >
            Show all sources
          </button>`
      }
    </form>
    <p class="summary-line" role="status">
      ${
        listing.items.length === 0 && loading
          ? "Loading…"
          : `${listing.total} ${listing.total === 1 ? "memory" : "memories"}${narrowed}, newest first`
      }
    </p>
    ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
    <ol class="memory-list" aria-label="Memories">
      ${listing.items.map((item) => html`<${Row} key=${item.umoId} item=${item} query=${query} />`)}
    </ol>
    ${
      !loading && !listing.hasMore && listing.items.length === 0 && error === null
        ? narrowed === ""
          ? html`<p>No memories yet. <${Link} href="/console/upload">Upload a file<//> to capture one.</p>`
          : html`<p>No memories match.</p>`
        : null
    }
    <div ref=${sentinel} class="sentinel">
      ${
        listing.hasMore && listing.items.length > 0
          ? html`<button type="button" class="secondary" onClick=${loadMore} disabled=${loading}>
            ${loading ? "Loading…" : "Load more"}
          </button>`
          : null
      }
    </div>
  `
}
