/**
 * @umo/client: a zero-dependency client for the UMO API (global `fetch`). This skeleton speaks
 * the liveness call; the nine verbs of the spec arrive with the clients issue.
 */

export interface UMOClientOptions {
  /** API key; defaults to the `UMO_API_KEY` environment variable. */
  readonly apiKey?: string
  /** Service address; defaults to `UMO_BASE_URL`, then http://127.0.0.1:8787. */
  readonly baseUrl?: string
  readonly timeoutMs?: number
}

/** Base class of every error the client raises. */
export class UMOError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly requestId: string | null
  ) {
    super(message)
    this.name = "UMOError"
  }
}

const env = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name]

export class UMOClient {
  readonly baseUrl: string
  readonly apiKey: string | undefined
  readonly timeoutMs: number

  constructor(options: UMOClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? env("UMO_BASE_URL") ?? "http://127.0.0.1:8787").replace(/\/+$/, "")
    this.apiKey = options.apiKey ?? env("UMO_API_KEY")
    this.timeoutMs = options.timeoutMs ?? 30_000
  }

  /** `GET /health`: whether the service is up. Needs no key. */
  async health(): Promise<{ status: string }> {
    const url = `${this.baseUrl}/health`
    const response = await fetch(url, { signal: AbortSignal.timeout(this.timeoutMs) }).catch(
      (cause: unknown) => {
        throw new UMOError(`could not reach ${url}: ${String(cause)}`, null, null)
      }
    )
    const requestId = response.headers.get("x-request-id")
    if (!response.ok)
      throw new UMOError(`health check failed with ${response.status}`, response.status, requestId)
    return (await response.json()) as { status: string }
  }
}
