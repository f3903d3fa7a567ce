/**
 * The console's scopes, as a person would use them: memories of two end users (one of them with a
 * memory replaced by a newer one) are captured through the API, then in the browser: narrow the
 * list to one user (and see the scope survive a reload), show the superseded memory with the
 * toggle, search and ask within the scope, read a memory's scope, metadata and history (its proof
 * verified, the signed supersession included), erase the user's scope and see the receipt
 * verified, and find the other user's memories untouched. Like ConsoleTour.ts it throws when a step
 * does not show what it should, and calls `snap` on each main view.
 * @module
 */
import { UMOClient } from "@umo/client"
import type { Page } from "playwright-core"

export interface ScopeTourResult {
  /** Rows listed for "ana": current memories only, then superseded ones included. */
  readonly listed: number
  readonly listedWithSuperseded: number
  /** The ids of the history list on the superseded memory's page, in order. */
  readonly history: ReadonlyArray<string>
  readonly oldId: string
  readonly newId: string
  /** The count the erasure receipt shows. */
  readonly erased: number
  /** Memories left through the API: Ana's (superseded included) and Ben's. */
  readonly anaLeft: number
  readonly benLeft: number
}

const timeout = 60_000

const check = (condition: boolean, message: string) => {
  if (!condition) throw new Error(`scope tour: ${message}`)
}

const ana = { userId: "ana", agentId: "concierge", sessionId: "trip-2024" } as const
// No updates inferred from the facts: the one supersession is the one the tour names.
const fixed = { inferUpdates: false } as const

const idOf = (href: string | null) => decodeURIComponent(href?.split("?")[0]?.split("/").at(-1) ?? "")

export const scopeTour = async (
  page: Page,
  server: { readonly baseUrl: string; readonly apiKey: string },
  snap: (name: string) => Promise<void> = async () => {}
): Promise<ScopeTourResult> => {
  page.setDefaultTimeout(timeout)
  const api = new UMOClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })
  const old = await api.capture("Ana lives in Lisbon, in a flat near the river Tagus.", {
    ...ana,
    metadata: { topic: "home", confidence: 0.9 },
    ...fixed
  })
  const moved = await api.capture("Ana moved to Porto in May, and lives near the Douro now.", {
    ...ana,
    metadata: { topic: "home", tags: ["move", "city"] },
    supersedes: [old.umoId],
    ...fixed
  })
  check(moved.supersedes.includes(old.umoId), "the new memory did not supersede the old one")
  await api.capture("Ana prefers a window seat on long flights.", {
    userId: "ana",
    agentId: "concierge",
    sessionId: "trip-2025",
    metadata: { topic: "travel" },
    ...fixed
  })
  await api.capture("Ben keeps bees on the roof of his house in Leeds.", { userId: "ben", ...fixed })
  await api.capture("Ben is allergic to peanuts and carries an epinephrine pen.", {
    userId: "ben",
    ...fixed
  })

  // Maya's two memories: one said in 2019 and captured now, one said now.
  await api.capture("Maya ran her first marathon in Berlin.", {
    userId: "maya",
    timestamp: "2019-09-29T09:15:00Z",
    ...fixed
  })
  await api.capture("Maya is training for a half marathon this spring.", { userId: "maya", ...fixed })

  await page.goto(`${server.baseUrl}/console`)
  await page.getByLabel("API key").fill(server.apiKey)
  await page.getByLabel("API key").press("Enter")
  await page.getByText("Signed in as").waitFor()
  const nav = (name: string) => page.getByRole("navigation").getByRole("link", { name, exact: true })
  await nav("Memories").click()

  const rows = page.getByRole("list", { name: "Memories" }).getByRole("listitem")
  const summary = page.locator(".summary-line")
  // Each memory shows its own time, the capture time beside it, and the list goes by the former.
  await page.goto(`${server.baseUrl}/console/memories?user_id=maya`)
  await summary.filter({ hasText: "2 memories of user “maya”" }).waitFor()
  const times = await rows
    .getByTestId("memory-time")
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("datetime")))
  check(times[1] === "2019-09-29T09:15:00.000Z", `the list shows ${times[1]}, not the memory's own time`)
  check(Date.parse(times[0] ?? "") > Date.parse("2025-01-01"), "the newer memory is not listed first")
  check((await rows.nth(1).textContent())?.includes("2019") === true, "the 2019 memory does not show 2019")
  check((await rows.nth(1).locator(".captured").count()) === 1, "the capture time is not beside it")
  // The user field offers the account's users, from GET /v1/scopes.
  await page.locator("#scope-user-ids option[value='maya']").waitFor({ state: "attached" })
  await page.getByRole("button", { name: "Clear scope" }).click()

  // The list, narrowed to Ana: her current memories only, and the scope is in the address.
  await page.getByLabel("User", { exact: true }).fill("ana")
  await page.getByRole("button", { name: "Apply scope" }).click()
  await summary.filter({ hasText: "2 memories of user “ana”, newest first" }).waitFor()
  await page.waitForURL(/\/console\/memories\?user_id=ana$/)
  await page.reload()
  await summary.filter({ hasText: "2 memories of user “ana”" }).waitFor()
  check((await page.getByLabel("User", { exact: true }).inputValue()) === "ana", "the reload lost the scope")
  const listed = await rows.count()
  check((await rows.filter({ hasText: "user ana" }).count()) === listed, "a listed memory is not Ana's")
  check((await rows.filter({ hasText: "Superseded by" }).count()) === 0, "a superseded memory is listed")

  // The toggle shows the superseded memory, marked and linked to the one that replaced it.
  await page.getByLabel("Include superseded memories").check()
  await summary.filter({ hasText: "3 memories of user “ana”, superseded ones included" }).waitFor()
  await page.waitForURL(/include_superseded=true/)
  const listedWithSuperseded = await rows.count()
  const replaced = rows.filter({ hasText: "Superseded by" })
  check((await replaced.count()) === 1, "the superseded memory is not marked")
  const successor = await replaced.getByRole("link", { name: moved.umoId }).getAttribute("href")
  check(idOf(successor) === moved.umoId, "“superseded by” does not link to the newer memory")
  await snap("scope")

  // Search and ask keep the scope: only Ana's current memories answer.
  await nav("Search and ask").click()
  await page.getByLabel("Include superseded memories").uncheck()
  await page.waitForURL(/\/console\/search\?user_id=ana$/)
  await page.getByLabel("Search text").fill("Where does Ana live?")
  await page.getByRole("button", { name: "Search", exact: true }).click()
  const results = page.getByRole("list", { name: "Search results" }).getByRole("listitem")
  await results.first().waitFor()
  const found = await results.count()
  check(found >= 1 && found <= 2, `the search within Ana's scope found ${found} memories`)
  check((await results.filter({ hasText: "user ana" }).count()) === found, "the search left the scope")
  check((await results.filter({ hasText: "Lisbon" }).count()) === 0, "the search found the superseded memory")
  await page.getByLabel("Question").fill("Where does Ana live?")
  await page.getByRole("button", { name: "Ask", exact: true }).click()
  await page.getByTestId("answer").waitFor()
  const anaIds = new Set((await api.list({ userId: "ana" })).items.map((item) => item.umoId))
  for (const href of await page
    .getByRole("list", { name: "Citations" })
    .getByRole("link")
    .evaluateAll((links) => links.map((link) => link.getAttribute("href"))))
    check(anaIds.has(idOf(href)), `the answer cites ${href}, not a current memory of Ana's`)

  // The superseded memory's page: scope, metadata, what replaced it, its history; its proof verifies.
  await page.goto(`${server.baseUrl}/console/memories/${old.umoId}?user_id=ana`)
  await page.getByTestId("provenance-badge").filter({ hasText: "Verified in your browser" }).waitFor()
  const scope = page.getByTestId("memory-scope")
  for (const text of ["ana", "concierge", "trip-2024"])
    await scope.getByRole("definition").filter({ hasText: text }).waitFor()
  const metadata = page.getByRole("table", { name: "Metadata" })
  await metadata.getByRole("row", { name: "topic home" }).waitFor()
  await metadata.getByRole("row", { name: "confidence 0.9" }).waitFor()
  await page.getByTestId("superseded-notice").getByRole("link", { name: moved.umoId }).waitFor()
  const versions = page.getByRole("list", { name: "Versions, oldest first" }).getByRole("listitem")
  await versions.nth(1).waitFor()
  const history = (
    await versions.getByRole("link").evaluateAll((links) => links.map((link) => link.getAttribute("href")))
  ).map(idOf)
  check(
    (await versions.nth(0).getByRole("link").getAttribute("aria-current")) === "page",
    "the history does not mark the memory shown"
  )
  check(
    (await versions.nth(1).filter({ hasText: "current version" }).count()) === 1,
    "the history does not mark the current version"
  )

  // The newer memory, from its history: it names what it supersedes, and the same line.
  await versions.nth(1).getByRole("link").click()
  await page.waitForURL(new RegExp(`/console/memories/${moved.umoId}\\?user_id=ana$`))
  await page.getByTestId("provenance-badge").filter({ hasText: "Verified in your browser" }).waitFor()
  await page.getByTestId("memory-history").getByRole("link", { name: old.umoId }).first().waitFor()
  await page.getByRole("row", { name: "tags move, city" }).waitFor()
  // Its categories and expiry, as the API has them.
  const filed = (await api.get(moved.umoId)).categories
  await page
    .getByTestId("memory-categories")
    .filter({ hasText: filed.join(", ") || "none" })
    .waitFor()
  await page.getByTestId("memory-expiry").filter({ hasText: "never" }).waitFor()
  await page.getByTestId("memory-scope").evaluate((section) => section.scrollIntoView({ block: "start" }))
  await snap("history")

  // Back to the list, still in Ana's scope; erase it: a confirmation naming her, then the receipt.
  await page.getByRole("link", { name: "← All memories" }).click()
  await page.waitForURL(/\/console\/memories\?user_id=ana$/)
  await summary.filter({ hasText: "2 memories of user “ana”" }).waitFor()
  await page.getByRole("button", { name: "Erase this scope…" }).click()
  const dialog = page.getByRole("dialog", { name: "Erase every memory of user “ana”?" })
  await dialog.waitFor()
  await page.keyboard.press("Escape")
  await dialog.waitFor({ state: "hidden" })
  check((await rows.count()) === 2, "cancelling the erasure changed the list")
  await page.getByRole("button", { name: "Erase this scope…" }).click()
  await snap("erase-confirm")
  await dialog.getByRole("button", { name: "Erase", exact: true }).click()
  await page.getByText("Receipt signature verified in your browser").waitFor()
  const erased = Number(await page.getByTestId("erased-count").textContent())
  await summary.filter({ hasText: "0 memories of user “ana”" }).waitFor()
  await page.getByText("No memories match.").waitFor()
  await snap("erase-receipt")

  // Ben's memories are still there, in the console and through the API.
  await page.getByLabel("User", { exact: true }).fill("ben")
  await page.getByRole("button", { name: "Apply scope" }).click()
  await summary.filter({ hasText: "2 memories of user “ben”" }).waitFor()
  check((await rows.filter({ hasText: "user ben" }).count()) === 2, "Ben's memories are not listed")

  // The chain shows the supersession, signed like the rest.
  await nav("Chain").click()
  const supersession = page.getByTestId("chain-entry").filter({ hasText: "Supersession" })
  await supersession.filter({ hasText: old.umoId }).filter({ hasText: "Signature verified" }).waitFor()

  const anaLeft = (await api.list({ userId: "ana", includeSuperseded: true })).totalCount
  const benLeft = (await api.list({ userId: "ben" })).totalCount
  return {
    listed,
    listedWithSuperseded,
    history,
    oldId: old.umoId,
    newId: moved.umoId,
    erased,
    anaLeft,
    benLeft
  }
}
