/**
 * `POST /v1/upload` through XMLHttpRequest rather than the client's `fetch`: only XHR reports how
 * much of the request body has been sent, which the upload view shows as a progress bar.
 * @module
 */
import { APIError, errorFor, Uploaded } from "@umo/client"

/** A fresh Idempotency-Key, also outside a secure context (where `randomUUID` is missing). */
const idempotencyKey = () =>
  typeof crypto.randomUUID === "function"
    ? crypto.randomUUID()
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("")

const parse = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/**
 * Uploads a file; `onProgress` gets the fraction of the body sent (0 to 1), then 1 once all of it
 * is. Resolves with the capture, or rejects with the client's error for the status and `detail`.
 */
export const uploadWithProgress = (
  apiKey: string,
  file: File,
  source: string | undefined,
  onProgress: (fraction: number) => void
): Promise<Uploaded> =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open("POST", "/v1/upload")
    xhr.setRequestHeader("authorization", `Bearer ${apiKey}`)
    xhr.setRequestHeader("accept", "application/json")
    xhr.setRequestHeader("idempotency-key", idempotencyKey())
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total)
    }
    xhr.upload.onload = () => onProgress(1)
    xhr.onload = () => {
      const body = parse(xhr.responseText)
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1)
        resolve(new Uploaded((body.data ?? body) as Record<string, unknown>))
      } else {
        const detail = typeof body.detail === "string" ? body.detail : null
        reject(errorFor(xhr.status, detail, xhr.getResponseHeader("x-request-id"), null))
      }
    }
    xhr.onerror = () => reject(new APIError("the upload could not reach the server"))
    const form = new FormData()
    form.append("file", file, file.name)
    if (source !== undefined && source !== "") form.append("source", source)
    xhr.send(form)
  })
