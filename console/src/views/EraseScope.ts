/**
 * Erasing a scope: a modal `<dialog>` naming the user, agent or session asks first (Escape or
 * "Cancel" backs out, focus starts on "Cancel"), then `DELETE /v1/memories?user_id=…` erases every
 * memory of it, superseded ones too, and answers one signed receipt, checked in this browser
 * against the pinned keys and shown.
 * @module
 */
import type { ErasureReceipt } from "@umo/client"
import { useEffect, useRef, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime } from "../format.js"
import { html } from "../html.js"
import { checkErasure } from "../provenance/ErasureChecks.js"
import { type ConsoleScope, describeScope, scopeSelection } from "../Scope.js"

interface Erased {
  readonly scope: string
  readonly receipt: ErasureReceipt
  /** null when the receipt checked out; else why not. */
  readonly problem: string | null
}

const ErasureReceiptView = (props: { erased: Erased }) => {
  const { receipt, problem, scope } = props.erased
  const ref = useRef<HTMLElement>(null)
  useEffect(() => ref.current?.focus(), [])
  const none = receipt.receipt === ""
  return html`
    <section class="receipt" aria-labelledby="erasure-title" tabindex="-1" ref=${ref}>
      <h2 id="erasure-title">Erasure receipt</h2>
      <p class=${`badge ${none ? "badge-pending" : problem === null ? "badge-ok" : "badge-failed"}`} role="status">
        ${
          none
            ? "Nothing matched: no memory was erased, and no receipt was issued"
            : problem === null
              ? "✓ Receipt signature verified in your browser"
              : `✗ Receipt not verified: ${problem}`
        }
      </p>
      <dl class="facts">
        <dt>Scope</dt>
        <dd>${scope}</dd>
        <dt>Memories erased</dt>
        <dd data-testid="erased-count">${receipt.forgotten}</dd>
        ${
          receipt.deletedAt === null
            ? null
            : html`<dt>Erased at</dt>
              <dd><time datetime=${receipt.deletedAt} title=${receipt.deletedAt}>${formatTime(receipt.deletedAt)}</time></dd>`
        }
      </dl>
      ${
        none
          ? null
          : html`<details>
            <summary>The ${receipt.umoIds.length} memory ids the receipt names</summary>
            <ul class="id-list">${receipt.umoIds.map((id) => html`<li key=${id}><code>${id}</code></li>`)}</ul>
          </details>
          <label for="erasure-jws">Receipt (compact JWS, EdDSA)</label>
          <textarea id="erasure-jws" readonly rows="4" value=${receipt.receipt}></textarea>`
      }
    </section>
  `
}

/** The "Erase…" button with its confirmation, then the receipt; `onErased` once memories are gone. */
export const EraseScope = (props: { scope: ConsoleScope; onErased: () => void }) => {
  const { client, pinned } = useSession()
  const dialog = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [erased, setErased] = useState<Erased | null>(null)
  const named = describeScope(props.scope)

  const open = () => {
    setError(null)
    dialog.current?.showModal()
  }
  const close = () => dialog.current?.close()

  const erase = async () => {
    setBusy(true)
    try {
      const receipt = await client.forgetAll(scopeSelection(props.scope))
      const problem = await checkErasure(receipt, pinned)
      close()
      setErased({ scope: named, receipt, problem })
      props.onErased()
    } catch (failure) {
      setError(describeError(failure))
    } finally {
      setBusy(false)
    }
  }

  return html`
    <div class="erase-scope">
      <button type="button" class="danger" onClick=${open}>Erase this scope…</button>
      <span class="hint">Deletes every memory of ${named}, superseded ones too.</span>
    </div>
    <dialog ref=${dialog} aria-labelledby="erase-title" aria-describedby="erase-text" onClose=${() => setError(null)}>
      <h2 id="erase-title">Erase every memory of ${named}?</h2>
      <p id="erase-text">
        Every memory of ${named} — current and superseded — is deleted for good: content, extraction
        and vectors. The account's chain keeps a signed deletion entry for each (hashes only), and you
        get one signed receipt naming them all.
      </p>
      ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
      <div class="dialog-actions">
        <button type="button" class="secondary" onClick=${close} autofocus>Cancel</button>
        <button type="button" class="danger" onClick=${erase} disabled=${busy}>${busy ? "Erasing…" : "Erase"}</button>
      </div>
    </dialog>
    ${erased === null ? null : html`<${ErasureReceiptView} erased=${erased} />`}
  `
}
