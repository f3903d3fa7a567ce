/** One item of `POST /v1/batch`: a text, or a text with its source. */
export type BatchItem = string | { readonly content: string; readonly source: string }

/** Items a call of `captureInBatches` sends. */
export const itemsPerCall = 100

/** How `captureInBatches` sends its calls. */
export interface BatchOptions {
  /** Given to the items that are bare texts. */
  readonly source?: string | undefined
  /** Calls under way at once (default 1): each takes the next `itemsPerCall` items as the one before is answered. */
  readonly inFlight?: number | undefined
  /** Told how many items each call captured, as its answer comes. */
  readonly onAcknowledged?: ((items: number) => void) | undefined
}

/**
 * Captures `texts` into the account of `apiKey` through `POST /v1/batch`, `itemsPerCall` items a call, as a
 * client loading memories would; fails when a call or any item of it fails.
 */
export const captureInBatches = async (
  baseUrl: string,
  apiKey: string,
  texts: ReadonlyArray<BatchItem>,
  options: BatchOptions = {}
) => {
  const { source } = options
  const call = async (items: ReadonlyArray<BatchItem>) => {
    const response = await fetch(`${baseUrl}/v1/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        items: items.map((item) =>
          typeof item !== "string" ? item : source ? { content: item, source } : { content: item }
        )
      })
    })
    const { results } = (await response.json()) as { results?: Array<{ success: boolean }> }
    if (!response.ok || results?.some((r) => !r.success)) throw new Error(`batch answered ${response.status}`)
    options.onAcknowledged?.(items.length)
  }
  let queued = 0
  const caller = async () => {
    while (queued < texts.length) {
      const items = texts.slice(queued, queued + itemsPerCall)
      queued += items.length
      await call(items)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.inFlight ?? 1) }, caller))
}
