/**
 * The memories, newest first, a page at a time as the list is scrolled (offset pagination of
 * `GET /v1/memories`), optionally of one source.
 * @module
 */
import type { MemorySummary } from "@umo/client"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime, percent } from "../format.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"
import { useInfiniteScroll } from "../useInfiniteScroll.js"

const pageSize = 20

interface Listing {
  readonly items: ReadonlyArray<MemorySummary>
  readonly total: number
  readonly hasMore: boolean
}

const empty: Listing = { items: [], total: 0, hasMore: true }

export const MemoryList = () => {
  const { client } = useSession()
  const [source, setSource] = useState("")
  const [draft, setDraft] = useState("")
  const [listing, setListing] = useState<Listing>(empty)
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<string | null>(null)
  // The filter a response was asked for: one that answers after the filter changed is dropped.
  const current = useRef(source)
  current.current = source

  const loadMore = useCallback(async () => {
    if (loading || !listing.hasMore) return
    setLoading(true)
    const asked = source
    try {
      const page = await client.list({
        limit: pageSize,
        offset: listing.items.length,
        ...(asked === "" ? {} : { source: asked })
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
  }, [client, listing, loading, source])

  const sentinel = useInfiniteScroll(
    loadMore,
    listing.hasMore && !loading && error === null,
    listing === empty
  )

  useEffect(() => {
    setListing(empty)
    setError(null)
  }, [source])

  const applyFilter = (event: SubmitEvent) => {
    event.preventDefault()
    setSource(draft.trim())
  }
  const sources = [...new Set(listing.items.map((item) => item.source).filter((s) => s !== null))]

  return html`
    <h1 tabindex="-1">Memories</h1>
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
          : `${listing.total} ${listing.total === 1 ? "memory" : "memories"}${source === "" ? "" : ` from “${source}”`}, newest first`
      }
    </p>
    ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
    <ol class="memory-list">
      ${listing.items.map(
        (item) => html`
          <li key=${item.umoId}>
            <${Link} href=${memoryHref(item.umoId)}>${item.summary || "(no summary)"}<//>
            <div class="meta">
              <time datetime=${item.createdAt} title=${item.createdAt}>${formatTime(item.createdAt)}</time>
              ${item.source === null ? null : html`<span class="chip">${item.source}</span>`}
              <span>quality ${percent(item.qualityScore)}</span>
            </div>
          </li>
        `
      )}
    </ol>
    ${
      !loading && !listing.hasMore && listing.items.length === 0 && error === null
        ? html`<p>No memories yet. <${Link} href="/console/upload">Upload a file<//> to capture one.</p>`
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
