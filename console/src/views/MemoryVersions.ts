/**
 * A memory's place in the account: whose it is (user, agent, session) and its tags (`metadata`);
 * what it superseded and what superseded it; and its line of versions, oldest first
 * (`GET /v1/memories/{id}/history`), each linking to its memory, this one and the current one marked.
 * @module
 */
import type { Memory, MemoryHistory, MetadataValue } from "@umo/client"
import { useEffect, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime } from "../format.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"

const valueText = (value: MetadataValue) =>
  typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : JSON.stringify(value)

const MemoryLink = (props: { id: string; query: string }) =>
  html`<${Link} href=${memoryHref(props.id) + props.query}><code>${props.id}</code><//>`

export const ScopeAndMetadata = (props: { memory: Memory }) => {
  const { memory } = props
  const tags = Object.entries(memory.metadata)
  const scope = (value: string | null) =>
    value === null ? html`<span class="hint">none</span>` : html`<code>${value}</code>`
  return html`
    <section aria-labelledby="scope-title" data-testid="memory-scope">
      <h2 id="scope-title">Scope and metadata</h2>
      <dl class="facts">
        <dt>User</dt>
        <dd>${scope(memory.userId)}</dd>
        <dt>Agent</dt>
        <dd>${scope(memory.agentId)}</dd>
        <dt>Session</dt>
        <dd>${scope(memory.sessionId)}</dd>
      </dl>
      ${
        tags.length === 0
          ? html`<p>No metadata.</p>`
          : html`<table aria-label="Metadata">
            <thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
            <tbody>
              ${tags.map(([key, value]) => html`<tr key=${key}><th scope="row"><code>${key}</code></th><td>${valueText(value)}</td></tr>`)}
            </tbody>
          </table>`
      }
    </section>
  `
}

/** At the top of a superseded memory: which memory replaced it, and when. */
export const SupersededNotice = (props: { memory: Memory; query: string }) => {
  const { supersededBy, supersededAt } = props.memory
  if (supersededBy === null) return null
  return html`<p class="notice" data-testid="superseded-notice">
    Superseded by <${MemoryLink} id=${supersededBy} query=${props.query} />
    ${supersededAt === null ? null : html` on <time datetime=${supersededAt} title=${supersededAt}>${formatTime(supersededAt)}</time>`}:
    list, search and ask leave it out unless superseded memories are included.
  </p>`
}

const Version = (props: { version: Memory; viewed: boolean; current: boolean; query: string }) => {
  const { version, viewed, current } = props
  return html`
    <li class=${viewed ? "viewed" : undefined}>
      <${Link} href=${memoryHref(version.umoId) + props.query} aria-current=${viewed ? "page" : undefined}>
        ${version.summary || version.umoId}
      <//>
      <div class="meta">
        <time datetime=${version.timestamp} title=${version.timestamp}>${formatTime(version.timestamp)}</time>
        <code>${version.umoId}</code>
        ${viewed ? html`<span class="chip">this memory</span>` : null}
        ${current ? html`<span class="chip chip-current">current version</span>` : null}
        ${version.supersededBy === null ? null : html`<span>superseded by <code>${version.supersededBy}</code></span>`}
      </div>
    </li>
  `
}

export const History = (props: { memory: Memory; query: string }) => {
  const { client } = useSession()
  const { memory, query } = props
  const [history, setHistory] = useState<MemoryHistory | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let live = true
    client
      .history(memory.umoId)
      .then((line) => live && setHistory(line))
      .catch((failure) => live && setError(describeError(failure)))
    return () => {
      live = false
    }
  }, [client, memory.umoId])

  const current = history?.current?.umoId
  return html`
    <section aria-labelledby="history-title" data-testid="memory-history">
      <h2 id="history-title">History</h2>
      <dl class="facts">
        <dt>Supersedes</dt>
        <dd>
          ${
            memory.supersedes.length === 0
              ? "nothing"
              : memory.supersedes.map(
                  (id, i) => html`${i === 0 ? "" : ", "}<${MemoryLink} key=${id} id=${id} query=${query} />`
                )
          }
        </dd>
        <dt>Superseded by</dt>
        <dd>${memory.supersededBy === null ? "nothing: it is current" : html`<${MemoryLink} id=${memory.supersededBy} query=${query} />`}</dd>
      </dl>
      ${error === null ? null : html`<p class="error" role="alert">The history could not be fetched: ${error}</p>`}
      ${history === null && error === null ? html`<p role="status">Loading the versions…</p>` : null}
      ${
        history === null
          ? null
          : html`<p class="hint">
              ${history.versions.length} ${history.versions.length === 1 ? "version" : "versions"}, oldest first
              ${history.versions.length === 1 ? ": nothing superseded this memory, and it superseded nothing." : ""}
            </p>
            <ol class="versions" aria-label="Versions, oldest first">
              ${history.versions.map(
                (version) =>
                  html`<${Version}
                    key=${version.umoId}
                    version=${version}
                    viewed=${version.umoId === memory.umoId}
                    current=${version.umoId === current}
                    query=${query}
                  />`
              )}
            </ol>`
      }
    </section>
  `
}
