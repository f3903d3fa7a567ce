/** `POST /v1/memories/query`: the memories that best match a text, with their ranking scores. */
import type { Match } from "@umo/client"
import { useState } from "preact/hooks"
import { useSession } from "../api/Session.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"
import { useRequest } from "../useRequest.js"

export const SearchPanel = () => {
  const { client } = useSession()
  const [query, setQuery] = useState("")
  const [results, setResults] = useState<ReadonlyArray<Match> | null>(null)
  const { busy, error, run } = useRequest()

  const submit = (event: SubmitEvent) => {
    event.preventDefault()
    void run(async () => setResults(await client.ask(query, { limit: 10 })))
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
                  <li key=${result.umoId}>
                    <p class="snippet">${result.content}</p>
                    <div class="meta">
                      <span>score ${result.score.toFixed(3)}</span>
                      <${Link} href=${memoryHref(result.umoId)}>Open memory<//>
                    </div>
                  </li>
                `
              )}
            </ol>`
      }
    </section>
  `
}
