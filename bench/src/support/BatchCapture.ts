/** One item of `POST /v1/batch`: a text, or a text with its source. */
export type BatchItem = string | { readonly content: string; readonly source: string }

/**
 * Captures `texts` into the account of `apiKey` through `POST /v1/batch`, 100 items a call,
 * `inFlight` calls at a time, as a client loading memories would; fails when a call or any item
 * of it fails. `source` is given to the items that are bare texts.
 */
export const captureInBatches = async (
  baseUrl: string,
  apiKey: string,
  texts: ReadonlyArray<BatchItem>,
  source?: string,
  inFlight = 1
) => {
  const call = async (from: number) => {
    const response = await fetch(`${baseUrl}/v1/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        items: texts
          .slice(from, from + 100)
          .map((item) =>
            typeof item !== "string" ? item : source ? { content: item, source } : { content: item }
          )
      })
    })
    const { results } = (await response.json()) as { results?: Array<{ success: boolean }> }
    if (!response.ok || results?.some((r) => !r.success)) throw new Error(`batch answered ${response.status}`)
  }
  for (let i = 0; i < texts.length; i += 100 * inFlight)
    await Promise.all(
      Array.from({ length: inFlight }, (_, k) => i + k * 100)
        .filter((from) => from < texts.length)
        .map(call)
    )
}
