/**
 * Memories out and in: `GET /v1/export` read as it arrives (counting its lines, to show progress)
 * into a Blob the browser saves as a `.jsonl` file, and `POST /v1/import` with a picked file as the
 * body. Plain `fetch` rather than the client: the file is saved as the server wrote it, byte for
 * byte, and a `File` body is sent by the browser without being read into a string first.
 * @module
 */
import { APIError, errorFor, ImportSummary } from "@umo/client"

/** What the export asks for: the scope's fields as `GET /v1/memories` takes them. */
export interface ExportRequest {
  readonly userId: string
  readonly agentId: string
  readonly sessionId: string
  readonly source: string
  readonly includeSuperseded: boolean
  /** Also each memory's chunk vectors. */
  readonly embeddings: boolean
}

export interface Exported {
  readonly file: Blob
  /** The memories the export's last line counts. */
  readonly memories: number
}

export interface ImportRequest {
  readonly format: "auto" | "umo" | "mem0"
  readonly onError: "skip" | "stop"
}

/** The query string of an export (`?…`). */
export const exportQuery = (request: ExportRequest): string => {
  const query = new URLSearchParams()
  const fields = [
    ["user_id", request.userId],
    ["agent_id", request.agentId],
    ["session_id", request.sessionId],
    ["source", request.source]
  ] as const
  for (const [name, value] of fields) if (value !== "") query.set(name, value)
  query.set("include_superseded", String(request.includeSuperseded))
  if (request.embeddings) query.set("embeddings", "true")
  return `?${query}`
}

/** The client's error for a refused request, with the server's `detail` when it sent one. */
const refusal = async (response: Response) => {
  let detail: string | null = null
  try {
    const body = (await response.json()) as { detail?: unknown }
    if (typeof body.detail === "string") detail = body.detail
  } catch {
    // No JSON body: the status says it.
  }
  return errorFor(response.status, detail, response.headers.get("x-request-id"), null)
}

const reach = async (what: string, request: () => Promise<Response>) => {
  try {
    return await request()
  } catch {
    throw new APIError(`the ${what} could not reach the server`)
  }
}

/** The last JSON line of a file (read from its tail only: an export may be large). */
const lastLine = async (file: Blob): Promise<unknown> => {
  const tail = await file.slice(Math.max(0, file.size - 4096)).text()
  const line = tail.trimEnd().split("\n").at(-1) ?? ""
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

const newline = 10

/**
 * Runs an export; `onProgress` hears how many memory lines have arrived. Rejects with the server's
 * refusal, or when the export ended before its last line (it was cut short: saving it would leave
 * a file that looks whole and is not).
 */
export const exportMemories = async (
  apiKey: string,
  request: ExportRequest,
  onProgress: (memories: number) => void
): Promise<Exported> => {
  const response = await reach("export", () =>
    fetch(`/v1/export${exportQuery(request)}`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: "application/x-ndjson, application/json" }
    })
  )
  if (!response.ok) throw await refusal(response)
  const parts: Array<Uint8Array<ArrayBuffer>> = []
  let lines = 0
  if (response.body !== null) {
    const reader = response.body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        parts.push(value)
        for (const byte of value) if (byte === newline) lines++
        // The header is the first line; the end line is the last.
        onProgress(Math.max(0, lines - 1))
      }
    } catch {
      throw new APIError(`the export was cut short after ${Math.max(0, lines - 1)} memories; run it again`)
    }
  }
  const file = new Blob(parts, { type: "application/x-ndjson" })
  const end = (await lastLine(file)) as { kind?: unknown; memories?: unknown } | undefined
  if (end?.kind !== "end" || typeof end.memories !== "number")
    throw new APIError("the export ended before its last line (it was cut short); run it again")
  return { file, memories: end.memories }
}

/** A Mem0 JSON document goes as JSON; anything else as JSON Lines (the server reads both alike). */
const contentTypeOf = (file: File) =>
  /\.json$/i.test(file.name) ? "application/json" : "application/x-ndjson"

/** Imports a file, sent as the request body as it is; resolves with what the server did. */
export const importFile = async (
  apiKey: string,
  file: File,
  request: ImportRequest
): Promise<ImportSummary> => {
  const query = new URLSearchParams({ format: request.format, on_error: request.onError })
  const response = await reach("import", () =>
    fetch(`/v1/import?${query}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        accept: "application/json",
        "content-type": contentTypeOf(file)
      },
      body: file
    })
  )
  if (!response.ok) throw await refusal(response)
  const body = (await response.json()) as { data?: Record<string, unknown> }
  return new ImportSummary(body.data ?? (body as Record<string, unknown>))
}

/** A name for the export's file: the account, the scope, the day. */
export const exportFileName = (account: string, scope: ReadonlyArray<string>, date = new Date()) => {
  const slug = (text: string) => text.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "")
  const parts = ["umo-export", slug(account), ...scope.map(slug), date.toISOString().slice(0, 10)]
  return `${parts.filter((part) => part !== "").join("-")}.jsonl`
}

/**
 * Saves a Blob as a file: an object URL on a `download` link, clicked, then let go (no inline
 * script, no navigation: the console's CSP allows only 'self').
 */
export const saveFile = (file: Blob, name: string) => {
  const url = URL.createObjectURL(file)
  const link = document.createElement("a")
  link.href = url
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  // The download has started by now; the URL is kept a while for browsers that read it later.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
