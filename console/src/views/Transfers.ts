/**
 * Export and import on the memory list. "Export" saves the memories of the scope (and source) the
 * list shows as a `.jsonl` file of `GET /v1/export` — each with its signed proof — and says how
 * many its last line counts. "Import…" asks in a modal `<dialog>` for a file (an export of UMO, or
 * Mem0's JSON or JSON Lines), its format and whether a bad line stops it, sends it to
 * `POST /v1/import`, and shows the summary: what came in, what was there already, what failed, by
 * line. The list is then read anew.
 * @module
 */
import type { ImportSummary } from "@umo/client"
import { useEffect, useRef, useState } from "preact/hooks"
import { describeError, useSession } from "../api/Session.js"
import { exportFileName, exportMemories, type ImportRequest, importFile, saveFile } from "../api/Transfers.js"
import { html } from "../html.js"
import { type ConsoleScope, describeScope, scopeFields } from "../Scope.js"

/** Failures the summary lists; the server sends up to 100. */
const shownFailures = 10

const plural = (count: number, one: string, many: string) =>
  `${count.toLocaleString()} ${count === 1 ? one : many}`

const memories = (count: number) => plural(count, "memory", "memories")

const formats: ReadonlyArray<readonly [ImportRequest["format"], string]> = [
  ["auto", "Detect from the file"],
  ["umo", "UMO export"],
  ["mem0", "Mem0 (JSON or JSON Lines)"]
]

interface Imported {
  readonly fileName: string
  readonly summary: ImportSummary
}

/** The outcome in one line, with the badge's tone. */
const verdict = ({ summary }: Imported): readonly [string, string] => {
  if (summary.stoppedAt !== null)
    return ["badge-failed", `Stopped at line ${summary.stoppedAt.line}: nothing after it was imported`]
  if (!summary.complete)
    return [
      "badge-failed",
      summary.format === "umo"
        ? "The file ended before an export's last line: it may have been cut short"
        : "The JSON document ended early: it may have been cut short"
    ]
  if (summary.failed > 0)
    return ["badge-failed", `${plural(summary.failed, "line", "lines")} could not be imported`]
  if (summary.imported === 0 && summary.alreadyImported > 0)
    return ["badge-pending", `Nothing new: ${memories(summary.alreadyImported)} already here`]
  return ["badge-ok", `✓ Imported ${memories(summary.imported)}`]
}

const ImportSummaryView = (props: { imported: Imported }) => {
  const { summary, fileName } = props.imported
  const ref = useRef<HTMLElement>(null)
  useEffect(() => ref.current?.focus(), [props.imported])
  const [tone, said] = verdict(props.imported)
  const more = summary.failed - Math.min(summary.failures.length, shownFailures)
  return html`
    <section class="import-summary" aria-labelledby="import-summary-title" tabindex="-1" ref=${ref}>
      <h2 id="import-summary-title">Import summary</h2>
      <p class=${`badge ${tone}`} role="status">${said}</p>
      <dl class="facts">
        <dt>File</dt>
        <dd><code>${fileName}</code></dd>
        <dt>Format</dt>
        <dd>${summary.format === "umo" ? "UMO export" : "Mem0"}</dd>
        <dt>Lines read</dt>
        <dd>${summary.lines.toLocaleString()}</dd>
        <dt>Imported</dt>
        <dd data-testid="imported-count">${summary.imported.toLocaleString()}</dd>
        <dt>Already here</dt>
        <dd data-testid="already-count">${summary.alreadyImported.toLocaleString()}</dd>
        ${
          summary.format === "umo"
            ? html`<dt>Proofs verified</dt>
              <dd>${summary.verified.toLocaleString()}</dd>
              <dt>Supersessions restored</dt>
              <dd>${summary.linked.toLocaleString()}</dd>`
            : null
        }
        <dt>Failed</dt>
        <dd data-testid="failed-count">${summary.failed.toLocaleString()}</dd>
      </dl>
      ${
        summary.failures.length === 0
          ? null
          : html`<h3 id="import-failures-title">${summary.failures.length > shownFailures ? `The first ${shownFailures} failures` : "Failures"}</h3>
            <ul class="failures" aria-labelledby="import-failures-title">
              ${summary.failures
                .slice(0, shownFailures)
                .map(
                  (failure) =>
                    html`<li key=${failure.line}><strong>Line ${failure.line}</strong>: ${failure.detail}</li>`
                )}
            </ul>
            ${more > 0 ? html`<p class="hint">…and ${plural(more, "more", "more")}.</p>` : null}`
      }
    </section>
  `
}

/** The export and import bar; `onImported` once memories may have come in. */
export const Transfers = (props: { scope: ConsoleScope; source: string; onImported: () => void }) => {
  const { apiKey, account } = useSession()
  const { scope, source } = props
  const [embeddings, setEmbeddings] = useState(false)
  const [exporting, setExporting] = useState(false)
  const [exportStatus, setExportStatus] = useState<string | null>(null)
  const [exportError, setExportError] = useState<string | null>(null)

  const dialog = useRef<HTMLDialogElement>(null)
  const [file, setFile] = useState<File | null>(null)
  const [format, setFormat] = useState<ImportRequest["format"]>("auto")
  const [stopOnError, setStopOnError] = useState(false)
  const [importing, setImporting] = useState(false)
  const [importError, setImportError] = useState<string | null>(null)
  const [imported, setImported] = useState<Imported | null>(null)

  // A new scope or source: what was said of the last export is no longer about this one.
  const selection = `${scopeFields.map(([field]) => scope[field]).join("\u0000")}\u0000${source}`
  useEffect(() => {
    setExportStatus(null)
    setExportError(null)
  }, [selection, scope.includeSuperseded])

  const named = describeScope(scope)
  const what = [
    named === "" ? "every memory of the account" : `every memory of ${named}`,
    source === "" ? "" : ` from “${source}”`,
    scope.includeSuperseded ? " (superseded ones included)" : " (current ones only)"
  ].join("")

  const runExport = async () => {
    setExporting(true)
    setExportError(null)
    setExportStatus("Exporting…")
    try {
      const exported = await exportMemories(apiKey, { ...scope, source, embeddings }, (count) =>
        setExportStatus(`Exporting… ${memories(count)} so far`)
      )
      const name = exportFileName(
        account.name,
        scopeFields
          .filter(([field]) => scope[field] !== "")
          .map(([field, , word]) => `${word}-${scope[field]}`)
      )
      saveFile(exported.file, name)
      setExportStatus(`Exported ${memories(exported.memories)} to ${name}`)
    } catch (failure) {
      setExportStatus(null)
      setExportError(describeError(failure))
    } finally {
      setExporting(false)
    }
  }

  const openImport = () => {
    setImportError(null)
    dialog.current?.showModal()
  }
  const close = () => dialog.current?.close()

  const runImport = async (event: SubmitEvent) => {
    event.preventDefault()
    if (file === null) return
    setImporting(true)
    setImportError(null)
    try {
      const summary = await importFile(apiKey, file, { format, onError: stopOnError ? "stop" : "skip" })
      close()
      setImported({ fileName: file.name, summary })
      props.onImported()
    } catch (failure) {
      setImportError(describeError(failure))
    } finally {
      setImporting(false)
    }
  }

  return html`
    <div class="transfers">
      <button type="button" class="secondary" onClick=${runExport} disabled=${exporting}>
        ${exporting ? "Exporting…" : "Export"}
      </button>
      <label class="check">
        <input type="checkbox" checked=${embeddings} onChange=${(event: Event) => setEmbeddings((event.target as HTMLInputElement).checked)} />
        With vectors
      </label>
      <span class="hint">Saves ${what} to a <code>.jsonl</code> file, each with its signed proof.</span>
      <button type="button" class="secondary" onClick=${openImport}>Import…</button>
    </div>
    ${exportStatus === null ? null : html`<p class="hint export-status" role="status" data-testid="export-status">${exportStatus}</p>`}
    ${exportError === null ? null : html`<p class="error" role="alert">${exportError}</p>`}
    <dialog ref=${dialog} aria-labelledby="import-title" aria-describedby="import-text" onClose=${() => setImportError(null)}>
      <h2 id="import-title">Import memories</h2>
      <p id="import-text">
        An export of UMO (each memory's proof is checked against the export's keys) or Mem0's
        (<code>get_all</code> JSON, or one memory a line). Each memory is captured anew with its scope and
        time, and remembers where it came from; one imported before is not stored twice.
      </p>
      <form class="stacked import-form" onSubmit=${runImport}>
        <label for="import-file">File <span class="optional">(.jsonl, .ndjson or .json)</span></label>
        <input
          id="import-file"
          type="file"
          required
          accept=".jsonl,.ndjson,.json,application/x-ndjson,application/json"
          onChange=${(event: Event) => setFile((event.target as HTMLInputElement).files?.[0] ?? null)}
        />
        <label for="import-format">Format</label>
        <select
          id="import-format"
          value=${format}
          onChange=${(event: Event) => setFormat((event.target as HTMLSelectElement).value as ImportRequest["format"])}
        >
          ${formats.map(([value, label]) => html`<option key=${value} value=${value}>${label}</option>`)}
        </select>
        <label class="check">
          <input type="checkbox" checked=${stopOnError} onChange=${(event: Event) => setStopOnError((event.target as HTMLInputElement).checked)} />
          Stop at the first bad line
        </label>
        ${
          importing
            ? html`<p class="hint" role="status">Sending ${file?.name}; the server imports it as it reads…</p>`
            : null
        }
        ${importError === null ? null : html`<p class="error" role="alert">${importError}</p>`}
        <div class="dialog-actions">
          <button type="button" class="secondary" onClick=${close} autofocus>Cancel</button>
          <button type="submit" disabled=${importing || file === null}>${importing ? "Importing…" : "Import"}</button>
        </div>
      </form>
    </dialog>
    ${imported === null ? null : html`<${ImportSummaryView} imported=${imported} />`}
  `
}
