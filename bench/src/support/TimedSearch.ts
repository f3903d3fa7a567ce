/** One search through the API, `limit` 10: its time at the client and its `Server-Timing` entries. */
export const timedSearch = async (baseUrl: string, apiKey: string, query: string) => {
  const started = performance.now()
  const response = await fetch(`${baseUrl}/v1/memories/query`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query, limit: 10 })
  })
  await response.json()
  const ms = performance.now() - started
  if (!response.ok) throw new Error(`search answered ${response.status}`)
  // "app;dur=61.2, embed;dur=30.1, sync;dur=0.4;desc=index, …": the whole request, then its stages.
  const timing = [
    ...(response.headers.get("server-timing") ?? "").matchAll(/([\w-]+);dur=([\d.]+)(?:;desc=([\w-]+))?/g)
  ].map(([, name, dur, desc]) => ({ name: name!, ms: Number(dur), desc }))
  return { started, ms, timing, servedBy: timing.find((t) => t.name === "sync")?.desc ?? "unknown" }
}
