/**
 * One memory (`GET /v1/memories/{id}`): its text with the entities marked, summary, triples,
 * topics, tone, quality, the pipeline that made it and each plugin's extensions; its scope and
 * metadata; its line of versions; its provenance, verified in the browser; and forgetting it.
 * Links keep the scope of the address, so "All memories" goes back to the list it came from.
 * @module
 */
import type { Memory } from "@umo/client"
import { useEffect, useState } from "preact/hooks"
import { contentOf } from "../api/MemoryContent.js"
import { describeError, useSession } from "../api/Session.js"
import { formatTime, percent } from "../format.js"
import { html } from "../html.js"
import { hrefOf, Link } from "../Router.js"
import { scopeQuery, useScope } from "../Scope.js"
import { ForgetDialog, type Forgotten, ReceiptView } from "./ForgetDialog.js"
import { EntityLegend, HighlightedText } from "./HighlightedText.js"
import { History, ScopeAndMetadata, SupersededNotice } from "./MemoryVersions.js"
import { ProvenancePanel } from "./ProvenancePanel.js"

type Loaded = { readonly memory: Memory; readonly content: string | undefined }

const Extraction = (props: { memory: Memory }) => {
  const { memory } = props
  const extensions = Object.keys(memory.extensions)
  return html`
    <section aria-labelledby="triples-title">
      <h2 id="triples-title">Subject–verb–object triples</h2>
      ${
        memory.triples.length === 0
          ? html`<p>None found.</p>`
          : html`<table>
            <thead><tr><th scope="col">Subject</th><th scope="col">Verb</th><th scope="col">Object</th></tr></thead>
            <tbody>
              ${memory.triples.map(
                (t, i) => html`<tr key=${i}><td>${t.subject}</td><td>${t.verb}</td><td>${t.object}</td></tr>`
              )}
            </tbody>
          </table>`
      }
    </section>
    <section aria-labelledby="topics-title">
      <h2 id="topics-title">Topics, categories, tone and quality</h2>
      <ul class="chips" aria-label="Topics">
        ${memory.topics.map((t) => html`<li key=${t.name} class="chip">${t.name} <small>${percent(t.score)}</small></li>`)}
      </ul>
      <dl class="facts">
        <dt>Tone</dt>
        <dd>${memory.tone.label} (${memory.tone.score.toFixed(2)})</dd>
        <dt>Quality</dt>
        <dd>${percent(memory.qualityScore)}</dd>
        <dt>Language</dt>
        <dd>${memory.language}</dd>
        <dt>Source</dt>
        <dd>${memory.source ?? "none"}</dd>
        <dt>Captured</dt>
        <dd><time datetime=${memory.createdAt} title=${memory.createdAt}>${formatTime(memory.createdAt)}</time></dd>
        <dt>Categories</dt>
        <dd data-testid="memory-categories">${memory.categories.length === 0 ? "none" : memory.categories.join(", ")}</dd>
        <dt>Expires</dt>
        <dd data-testid="memory-expiry">${
          memory.expiresAt === null
            ? "never"
            : html`<time datetime=${memory.expiresAt} title=${memory.expiresAt}>${formatTime(memory.expiresAt)}</time>`
        }</dd>
        <dt>Changes</dt>
        <dd>${memory.immutable ? "refused: captured immutable" : "by a new version"}</dd>
        <dt>Content hash</dt>
        <dd><code class="hash">${memory.contentHash}</code></dd>
      </dl>
    </section>
    <section aria-labelledby="pipeline-title">
      <h2 id="pipeline-title">Pipeline</h2>
      <table>
        <thead><tr><th scope="col">Stage</th><th scope="col">Plugin</th><th scope="col">Version</th></tr></thead>
        <tbody>
          ${(
            (memory.raw.pipeline ?? []) as ReadonlyArray<{ name: string; version: string; stage: string }>
          ).map(
            (p) => html`<tr key=${p.name}><td>${p.stage}</td><td>${p.name}</td><td>${p.version}</td></tr>`
          )}
        </tbody>
      </table>
      <h3>Extensions</h3>
      ${
        extensions.length === 0
          ? html`<p>No plugin added extensions.</p>`
          : html`<pre class="json">${JSON.stringify(memory.extensions, null, 2)}</pre>`
      }
    </section>
  `
}

export const MemoryDetail = (props: { id: string }) => {
  const { client } = useSession()
  const [loaded, setLoaded] = useState<Loaded | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [forgotten, setForgotten] = useState<Forgotten | null>(null)
  const query = scopeQuery(useScope()[0])

  useEffect(() => {
    let live = true
    client
      .get(props.id)
      .then(async (memory) => {
        const content = await contentOf(memory)
        if (live) setLoaded({ memory, content })
      })
      .catch((failure) => live && setError(describeError(failure)))
    return () => {
      live = false
    }
  }, [client, props.id])

  const back = html`<p><${Link} href=${hrefOf("/memories") + query}>← All memories<//></p>`
  if (forgotten !== null)
    return html`${back}<h1 tabindex="-1">Memory forgotten</h1><${ReceiptView} forgotten=${forgotten} />`
  if (error !== null)
    return html`${back}<h1 tabindex="-1">Memory</h1><p class="error" role="alert">${error}</p>`
  if (loaded === null) return html`${back}<h1 tabindex="-1">Memory</h1><p role="status">Loading…</p>`

  const { memory, content } = loaded
  return html`
    ${back}
    <h1 tabindex="-1">Memory <code class="id">${memory.umoId}</code></h1>
    <${SupersededNotice} memory=${memory} query=${query} />
    <${ProvenancePanel} memory=${memory} content=${content} />
    <section aria-labelledby="content-title">
      <h2 id="content-title">${content === undefined ? "Summary, entities marked" : "Content, entities marked"}</h2>
      ${
        content === undefined
          ? html`<p class="hint">
            This memory's text could not be found, or did not match its content hash; the summary is shown.
          </p>`
          : null
      }
      <${HighlightedText} text=${content ?? memory.summary} entities=${memory.entities} />
      <${EntityLegend} entities=${memory.entities} />
      ${content === undefined ? null : html`<h3>Summary</h3><p>${memory.summary}</p>`}
    </section>
    <${ScopeAndMetadata} memory=${memory} />
    <${History} memory=${memory} query=${query} />
    <${Extraction} memory=${memory} />
    <section aria-labelledby="forget-section-title" class="danger-zone">
      <h2 id="forget-section-title">Forget</h2>
      <${ForgetDialog} id=${memory.umoId} onForgotten=${setForgotten} />
    </section>
  `
}
