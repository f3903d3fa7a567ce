/**
 * `POST /v1/memories/query`: the memories of the scope that best match a text, with their ranking
 * scores, whose they are, what superseded them, and the later memories linked to them.
 * @module
 */
import type { LaterRelated, Match } from "@umo/client"
import { useEffect, useRef, useState } from "preact/hooks"
import { useSession } from "../api/Session.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"
import { type ConsoleScope, scopeQuery, selectionOf } from "../Scope.js"
import { useRequest } from "../useRequest.js"
import { ScopeBadges, SupersededNote } from "./ScopeBadges.js"

/** A result's later memories of the same person, linked by the update judge or by nearness: they may update it. */
export const LaterLinks = (props: { links: ReadonlyArray<LaterRelated>; query: string }) =>
  props.links.length === 0
    ? null
    : html`<details class="later">
        <summary>${props.links.length} later related</summary>
        <ul aria-label="Later related memories">
          ${props.links.map(
            (l) => html`<li key=${l.umoId}>
              <time datetime=${l.timestamp}>${l.timestamp.slice(0, 10)}</time>
              <${Link} href=${memoryHref(l.umoId) + props.query}>${l.content}<//>
              <span class="link">${l.link === "judge" ? `judge ${l.score.toFixed(2)}` : `near ${l.score.toFixed(2)}`}</span>
            </li>`
          )}
        </ul>
      </details>`

/** `within` names the scope and erasures seen: when it changes, the results shown are dropped. */
export const SearchPanel = (props: { scope: ConsoleScope; within: string }) => {
  const { client } = useSession()
  const [query, setQuery] = useState("")
  const [rerank, setRerank] = useState(false)
  const [results, setResults] = useState<ReadonlyArray<Match> | null>(null)
  const { busy, error, run } = useRequest()
  const scoped = scopeQuery(props.scope)

  // Results asked for in another scope than the one now shown are dropped.
  const within = useRef(props.within)
  within.current = props.within
  useEffect(() => setResults(null), [props.within])

  const submit = (event: SubmitEvent) => {
    event.preventDefault()
    const asked = props.within
    void run(async () => {
      const found = await client.ask(query, {
        limit: 10,
        ...(rerank ? { rerank } : {}),
        ...selectionOf(props.scope)
      })
      if (within.current === asked) setResults(found)
    })
  }

  return html`
    <section class="panel" aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form role="search" aria-label="Search memories" onSubmit=${submit}>
        <label for="search-query">Search text</label>
        <input
          id="search-query"
          type="search"
          required
          maxlength="2000"
          value=${query}
          onInput=${(event: Event) => setQuery((event.target as HTMLInputElement).value)}
        />
        <label class="inline">
          <input
            type="checkbox"
            checked=${rerank}
            onChange=${(event: Event) => setRerank((event.target as HTMLInputElement).checked)}
          />
          Rerank (the cross-encoder rereads the best 20: slower, better first results)
        </label>
        <button type="submit" disabled=${busy}>${busy ? "Searching…" : "Search"}</button>
      </form>
      ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
      ${
        results === null
          ? null
          : html`<p role="status">${results.length === 0 ? "No memory matches." : `${results.length} best matches`}</p>
            <ol class="results" aria-label="Search results">
              ${results.map(
                (result) => html`
                  <li key=${result.umoId} class=${result.supersededBy === null ? undefined : "superseded"}>
                    <p class="snippet">${result.content}</p>
                    <div class="meta">
                      <span>score ${result.score.toFixed(3)}</span>
                      <${ScopeBadges} item=${result} />
                      <${SupersededNote} item=${result} query=${scoped} />
                      <${Link} href=${memoryHref(result.umoId) + scoped}>Open memory<//>
                    </div>
                    <${LaterLinks} links=${result.laterRelated} query=${scoped} />
                  </li>
                `
              )}
            </ol>`
      }
    </section>
  `
}
