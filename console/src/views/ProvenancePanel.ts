/**
 * The memory's provenance, verified in this browser: the badge says "Verified" only when the
 * client's `verifyProof` accepts the proof from `GET /v1/memories/{id}/proof` under the keys pinned
 * at sign-in; otherwise the failed checks are listed. The server's own verdict is shown beside it,
 * but not relied on.
 * @module
 */
import type { Memory, Proof } from "@umo/client"
import { useEffect, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime, shortHash } from "../format.js"
import { html } from "../html.js"
import { checkProof, type ProofVerdict } from "../provenance/ProofChecks.js"

const mark = (ok: boolean | null) => (ok === true ? "✓" : ok === false ? "✗" : "–")
const state = (ok: boolean | null) => (ok === true ? "passed" : ok === false ? "failed" : "not checked")

export const ProvenancePanel = (props: { memory: Memory; content: string | undefined }) => {
  const { client, pinned } = useSession()
  const [proof, setProof] = useState<Proof | null>(null)
  const [verdict, setVerdict] = useState<ProofVerdict | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let live = true
    client
      .verify(props.memory.umoId)
      .then(async (fetched) => {
        const checked = await checkProof(props.memory, fetched, pinned, props.content)
        if (!live) return
        setProof(fetched)
        setVerdict(checked)
      })
      .catch((failure) => live && setError(describeError(failure)))
    return () => {
      live = false
    }
  }, [client, pinned, props.memory, props.content])

  if (error !== null)
    return html`<section class="provenance" aria-labelledby="provenance-title">
      <h2 id="provenance-title">Provenance</h2>
      <p class="badge badge-failed" role="status">Not verified</p>
      <p class="error" role="alert">The proof could not be fetched: ${error}</p>
    </section>`
  if (verdict === null || proof === null)
    return html`<section class="provenance" aria-labelledby="provenance-title">
      <h2 id="provenance-title">Provenance</h2>
      <p class="badge badge-pending" role="status">Verifying in your browser…</p>
    </section>`

  const failed = verdict.checks.filter((check) => check.ok !== true)
  return html`
    <section class="provenance" aria-labelledby="provenance-title">
      <h2 id="provenance-title">Provenance</h2>
      <p class=${`badge ${verdict.verified ? "badge-ok" : "badge-failed"}`} role="status" data-testid="provenance-badge">
        ${verdict.verified ? "✓ Verified in your browser" : "✗ Not verified"}
      </p>
      ${
        verdict.verified
          ? html`<p class="hint">
            The capture entry is signed with Ed25519 by a key pinned at sign-in, and names this memory's
            hashes${props.content === undefined ? "" : "; the text shown hashes to its content hash"}${
              proof.supersession === null
                ? ""
                : "; a signed supersession entry names the memory that replaced it"
            }.
          </p>`
          : html`<p class="error" role="alert">
            ${failed.length === 0 ? "The client's verifyProof refused the proof." : `Failed: ${failed.map((c) => c.label).join("; ")}.`}
          </p>`
      }
      <details open=${!verdict.verified}>
        <summary>Checks made in this browser</summary>
        <ul class="checks">
          ${verdict.checks.map(
            (check) =>
              html`<li key=${check.label} class=${`check-${state(check.ok).replace(" ", "-")}`}>
                <span aria-hidden="true">${mark(check.ok)}</span> ${check.label}
                <span class="visually-hidden"> (${state(check.ok)})</span>
              </li>`
          )}
        </ul>
      </details>
      <dl class="facts">
        <dt>First published</dt>
        <dd><time datetime=${proof.firstPublished}>${formatTime(proof.firstPublished)}</time></dd>
        <dt>Chain position</dt>
        <dd>${proof.entry === null ? "none" : `#${proof.entry.seq}`}</dd>
        <dt>Entry hash</dt>
        <dd><code title=${proof.entry?.entry_hash}>${shortHash(proof.entry?.entry_hash ?? "")}</code></dd>
        ${
          proof.supersession === null
            ? null
            : html`<dt>Superseded</dt>
              <dd>entry #${proof.supersession.seq}, <code title=${proof.supersession.entry_hash}>${shortHash(proof.supersession.entry_hash)}</code></dd>`
        }
        <dt>The server's own check</dt>
        <dd>${proof.valid && proof.hashChainValid ? "valid" : "invalid"} (shown, not relied on)</dd>
      </dl>
    </section>
  `
}
