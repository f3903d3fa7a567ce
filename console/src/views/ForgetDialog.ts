/**
 * Forgetting a memory: a modal `<dialog>` asks first (Escape or "Cancel" backs out, focus starts on
 * "Cancel"), then `DELETE /v1/memories/{id}` answers a signed deletion receipt, which is checked in
 * this browser against the pinned keys and shown.
 * @module
 */
import { type DeletionReceipt, verifyReceipt } from "@umo/client"
import { useEffect, useRef, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { formatTime } from "../format.js"
import { html } from "../html.js"

export interface Forgotten {
  readonly receipt: DeletionReceipt
  /** null when the receipt's signature checked out; else why not. */
  readonly problem: string | null
}

export const ForgetDialog = (props: { id: string; onForgotten: (forgotten: Forgotten) => void }) => {
  const { client, pinned } = useSession()
  const dialog = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const open = () => {
    setError(null)
    dialog.current?.showModal()
  }
  const close = () => dialog.current?.close()

  const forget = async () => {
    setBusy(true)
    try {
      const receipt = await client.forget(props.id)
      const problem = await verifyReceipt(receipt.receipt, pinned).then(
        () => null,
        (failure: unknown) => describeError(failure)
      )
      close()
      props.onForgotten({ receipt, problem })
    } catch (failure) {
      setError(describeError(failure))
    } finally {
      setBusy(false)
    }
  }

  return html`
    <button type="button" class="danger" onClick=${open}>Forget this memory…</button>
    <dialog ref=${dialog} aria-labelledby="forget-title" aria-describedby="forget-text" onClose=${() => setError(null)}>
      <h2 id="forget-title">Forget this memory?</h2>
      <p id="forget-text">
        Its content, extraction and vectors are deleted for good. The account's chain keeps a signed
        deletion entry (hashes only, no content), and you get a signed receipt.
      </p>
      ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
      <div class="dialog-actions">
        <button type="button" class="secondary" onClick=${close} autofocus>Cancel</button>
        <button type="button" class="danger" onClick=${forget} disabled=${busy}>${busy ? "Forgetting…" : "Forget"}</button>
      </div>
    </dialog>
  `
}

/** The deletion receipt, with the browser's check of its signature. */
export const ReceiptView = (props: { forgotten: Forgotten }) => {
  const { receipt, problem } = props.forgotten
  const ref = useRef<HTMLElement>(null)
  useEffect(() => ref.current?.focus(), [])
  return html`
    <section class="receipt" aria-labelledby="receipt-title" tabindex="-1" ref=${ref}>
      <h2 id="receipt-title">Deletion receipt</h2>
      <p class=${`badge ${problem === null ? "badge-ok" : "badge-failed"}`} role="status">
        ${problem === null ? "✓ Receipt signature verified in your browser" : `✗ Receipt not verified: ${problem}`}
      </p>
      <dl class="facts">
        <dt>Forgotten</dt>
        <dd>${receipt.forgotten ? "yes" : "no"}</dd>
        <dt>Memory</dt>
        <dd><code>${receipt.umoId}</code></dd>
        <dt>Deleted at</dt>
        <dd><time datetime=${receipt.deletedAt} title=${receipt.deletedAt}>${formatTime(receipt.deletedAt)}</time></dd>
      </dl>
      <label for="receipt-jws">Receipt (compact JWS, EdDSA)</label>
      <textarea id="receipt-jws" readonly rows="4" value=${receipt.receipt}></textarea>
    </section>
  `
}
