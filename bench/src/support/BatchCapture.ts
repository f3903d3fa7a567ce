/**
 * Captures `texts` into the account of `apiKey` through `POST /v1/batch`, 100 items a call, as a
 * client loading memories would; fails when a call or any item of it fails.
 */
export const captureInBatches = async (
  baseUrl: string,
  apiKey: string,
  texts: ReadonlyArray<string>,
  source?: string
) => {
  for (let i = 0; i < texts.length; i += 100) {
    const response = await fetch(`${baseUrl}/v1/batch`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        items: texts.slice(i, i + 100).map((content) => (source ? { content, source } : { content }))
      })
    })
    const { results } = (await response.json()) as { results?: Array<{ success: boolean }> }
    if (!response.ok || results?.some((r) => !r.success)) throw new Error(`batch answered ${response.status}`)
  }
}
