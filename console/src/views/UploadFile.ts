/**
 * Capturing a file (`POST /v1/upload`) with a progress bar of the bytes sent; the server then reads
 * the file and runs the pipeline, and the new memory is linked.
 * @module
 */
import type { Uploaded } from "@umo/client"
import { useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { uploadWithProgress } from "../api/UploadRequest.js"
import { percent } from "../format.js"
import { html } from "../html.js"
import { Link, memoryHref } from "../Router.js"

type Phase = "idle" | "sending" | "processing" | "done" | "failed"

export const UploadFile = () => {
  const { apiKey } = useSession()
  const [file, setFile] = useState<File | null>(null)
  const [source, setSource] = useState("")
  const [progress, setProgress] = useState(0)
  const [phase, setPhase] = useState<Phase>("idle")
  const [result, setResult] = useState<Uploaded | null>(null)
  const [error, setError] = useState<string | null>(null)

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    if (file === null) return
    setPhase("sending")
    setProgress(0)
    setResult(null)
    setError(null)
    try {
      const uploaded = await uploadWithProgress(apiKey, file, source.trim(), (fraction) => {
        setProgress(fraction)
        // Every byte is sent: what remains is the server's parsing and pipeline.
        if (fraction >= 1) setPhase("processing")
      })
      setResult(uploaded)
      setPhase("done")
    } catch (failure) {
      setError(describeError(failure))
      setPhase("failed")
    }
  }

  const busy = phase === "sending" || phase === "processing"
  const status =
    phase === "sending"
      ? `Uploading… ${percent(progress)}`
      : phase === "processing"
        ? "Uploaded 100%; the server is reading the file…"
        : phase === "done"
          ? "Uploaded 100% and captured"
          : phase === "failed"
            ? "The upload failed"
            : ""

  return html`
    <h1 tabindex="-1">Upload a file</h1>
    <p class="hint">
      Text, Markdown, HTML, JSON, CSV or PDF, up to 20 MB; images and audio give the text of their
      metadata. The file's text becomes one memory; the file itself is not kept.
    </p>
    <form class="stacked" onSubmit=${submit}>
      <label for="upload-file">File</label>
      <input
        id="upload-file"
        type="file"
        required
        onChange=${(event: Event) => setFile((event.target as HTMLInputElement).files?.[0] ?? null)}
      />
      <label for="upload-source">Source <span class="optional">${"(optional; default upload:<file name>)"}</span></label>
      <input id="upload-source" value=${source} onInput=${(event: Event) => setSource((event.target as HTMLInputElement).value)} />
      <button type="submit" disabled=${busy || file === null}>${busy ? "Uploading…" : "Upload"}</button>
    </form>
    ${
      phase === "idle"
        ? null
        : html`<div class="progress">
          <label for="upload-progress">Upload progress</label>
          <progress id="upload-progress" max="100" value=${Math.round(progress * 100)}>${percent(progress)}</progress>
          <p role="status" data-testid="upload-status">${status}</p>
        </div>`
    }
    ${error === null ? null : html`<p class="error" role="alert">${error}</p>`}
    ${
      result === null
        ? null
        : html`<section class="captured" aria-labelledby="captured-title">
          <h2 id="captured-title">Captured</h2>
          <p>${result.summary}</p>
          <dl class="facts">
            <dt>Format</dt>
            <dd>${result.format}</dd>
            <dt>Characters</dt>
            <dd>${result.characters.toLocaleString()}</dd>
            <dt>Quality</dt>
            <dd>${percent(result.qualityScore)}</dd>
          </dl>
          ${
            result.supersedes.length === 0
              ? null
              : html`<p>It makes ${result.supersedes.length === 1 ? "an earlier memory" : `${result.supersedes.length} earlier memories`} out of date: ${result.supersedes.map((id) => html`<${Link} href=${memoryHref(id)}>${id.slice(0, 8)}<//> `)}</p>`
          }
          ${result.warnings.map((w) => html`<p class="warning" role="status">${w}</p>`)}
          <p><${Link} href=${memoryHref(result.umoId)}>Open the new memory<//></p>
        </section>`
    }
  `
}
