/**
 * One session in the console, as a person would click through it: sign in (after a refused key),
 * upload a file, list, filter and scroll the memories, search, ask and open a citation, see a
 * memory verified, see the chain, forget a memory and see its receipt, sign out. Each step waits
 * for what it should show and throws when it does not; `snap` is called on each main view (the
 * screenshot script saves them; the browser test only walks).
 * @module
 */
import { UMOClient } from "@umo/client"
import type { Page } from "playwright-core"

export interface TourResult {
  readonly uploadedId: string
  readonly memoriesListed: number
  readonly chainEntries: number
}

const timeout = 60_000

const check = (condition: boolean, message: string) => {
  if (!condition) throw new Error(`console tour: ${message}`)
}

/** Texts the tour captures beside its upload: a page and a half of older notes, then a few recent ones. */
const olderNotes = Array.from({ length: 24 }, (_, i) => ({
  content: `Lab notebook, day ${i + 1}: calibrated the electrometer and logged ${10 + i} readings.`,
  source: "lab-notebook"
}))
const recent = [
  {
    content:
      "Ada Lovelace wrote the first published algorithm for Charles Babbage's Analytical Engine in London.",
    source: "journal"
  },
  {
    content: "Alan Turing worked at Bletchley Park during the Second World War and broke the Enigma cipher.",
    source: "journal"
  },
  {
    content: "Grace Hopper found a moth in the Mark II computer at Harvard University in 1947.",
    source: "notes"
  }
]
const uploadText =
  "Marie Curie was born in Warsaw in 1867. She moved to Paris to study physics at the " +
  "Sorbonne, and in 1898 she discovered polonium and radium with Pierre Curie.\n"

const nav = (page: Page, name: string) =>
  page.getByRole("navigation").getByRole("link", { name, exact: true })

export const consoleTour = async (
  page: Page,
  server: { readonly baseUrl: string; readonly apiKey: string },
  snap: (name: string) => Promise<void> = async () => {}
): Promise<TourResult> => {
  page.setDefaultTimeout(timeout)
  const api = new UMOClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })
  await api.batch(olderNotes)
  for (const item of recent) await api.capture(item.content, { source: item.source })

  // Sign-in: a wrong key is refused with the server's own detail.
  await page.goto(`${server.baseUrl}/console`)
  await page.getByLabel("API key").waitFor()
  await snap("sign-in")
  const refused = await fetch(`${server.baseUrl}/v1/account`, {
    headers: { authorization: "Bearer umo_wrong" }
  })
  const detail = ((await refused.json()) as { detail: string }).detail
  await page.getByLabel("API key").fill("umo_wrong")
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("alert").filter({ hasText: detail }).waitFor()
  // From the keyboard: Enter in the field submits.
  await page.getByLabel("API key").fill(server.apiKey)
  await page.getByLabel("API key").press("Enter")
  await page.getByText("Signed in as").waitFor()
  const stored = await page.evaluate(() => ({
    session: sessionStorage.getItem("umo.console.apiKey"),
    local: localStorage.length,
    // The test's typings are Node's: the page's globals are reached without the DOM types.
    cookies: (globalThis as unknown as { document: { cookie: string } }).document.cookie
  }))
  check(stored.session === server.apiKey, "the key is not in sessionStorage")
  check(stored.local === 0 && stored.cookies === "", "the key leaked to localStorage or a cookie")

  // Upload, with the progress bar at 100% once done.
  await nav(page, "Upload").click()
  await page.getByLabel("File", { exact: true }).setInputFiles({
    name: "curie.txt",
    mimeType: "text/plain",
    buffer: Buffer.from(uploadText)
  })
  await page.getByRole("button", { name: "Upload", exact: true }).click()
  await page.getByTestId("upload-status").filter({ hasText: "Uploaded 100% and captured" }).waitFor()
  const progress = await page
    .locator("#upload-progress")
    .evaluate((bar) => (bar as unknown as { value: number }).value)
  check(progress === 100, `the progress bar ended at ${progress}, not 100`)
  const uploadedHref = await page.getByRole("link", { name: "Open the new memory" }).getAttribute("href")
  const uploadedId = decodeURIComponent(uploadedHref?.split("/").at(-1) ?? "")
  check(uploadedId !== "", "the upload did not link its memory")
  await snap("upload")

  // The list: newest first, filtered by source, and more rows as it scrolls.
  await nav(page, "Memories").click()
  const rows = page.locator(".memory-list > li")
  await rows.first().waitFor()
  check(
    (await rows.first().locator("a").getAttribute("href")) === `/console/memories/${uploadedId}`,
    "the upload is not the newest memory"
  )
  await snap("memories")
  await rows.nth(19).waitFor()
  await page.locator(".sentinel").scrollIntoViewIfNeeded()
  await rows.nth(27).waitFor()
  const memoriesListed = await rows.count()
  check(memoriesListed === 28, `scrolling listed ${memoriesListed} memories, not 28`)
  await page.getByLabel("Source", { exact: true }).fill("journal")
  await page.getByRole("button", { name: "Filter" }).click()
  await page.getByText("2 memories from “journal”").waitFor()
  check((await rows.count()) === 2, "the source filter did not keep the journal's two memories")
  await page.getByRole("button", { name: "Show all sources" }).click()

  // Search, then ask and open a citation.
  await nav(page, "Search and ask").click()
  await page.getByLabel("Search text").fill("Where was Marie Curie born?")
  await page.getByRole("button", { name: "Search", exact: true }).click()
  await page.getByRole("list", { name: "Search results" }).getByText("Warsaw").first().waitFor()
  // Again with the reranker: the same question's answer still comes first.
  await page.getByLabel(/^Rerank/).check()
  await page.getByRole("button", { name: "Search", exact: true }).click()
  await page.getByRole("list", { name: "Search results" }).getByText("Warsaw").first().waitFor()
  await page.getByLabel("Question").fill("Where was Marie Curie born?")
  await page.getByRole("button", { name: "Ask", exact: true }).click()
  await page.getByTestId("answer").waitFor()
  const citation = page.getByRole("list", { name: "Citations" }).getByRole("link").first()
  await citation.waitFor()
  await snap("search-ask")
  await citation.click()
  await page.waitForURL(/\/console\/memories\/[^/]+$/)

  // A memory, verified in the browser.
  await page.getByTestId("provenance-badge").filter({ hasText: "Verified in your browser" }).waitFor()
  check((await page.locator("mark.entity").count()) > 0, "no entity is marked in the memory's text")
  await snap("memory")

  // The chain: every entry's signature verifies.
  await nav(page, "Chain").click()
  const entries = page.getByTestId("chain-entry")
  await entries.first().waitFor()
  await page.getByText("failing verification").waitFor({ state: "detached" })
  const chainEntries = await entries.count()
  check(chainEntries >= 20, `the chain shows ${chainEntries} entries`)
  check(
    (await entries.filter({ hasText: "Signature verified" }).count()) === chainEntries,
    "a chain entry's signature did not verify"
  )
  await snap("chain")

  // Forget the upload: a confirmation first (cancelled once), then the receipt; the chain records it.
  await page.goto(`${server.baseUrl}/console/memories/${uploadedId}`)
  await page.getByTestId("provenance-badge").filter({ hasText: "Verified in your browser" }).waitFor()
  await page.getByRole("button", { name: "Forget this memory…" }).click()
  const dialog = page.getByRole("dialog", { name: "Forget this memory?" })
  await dialog.waitFor()
  // Focus starts on "Cancel", and Escape backs out, as a keyboard user expects.
  const focused = await dialog
    .getByRole("button", { name: "Cancel" })
    .evaluate(
      (button) =>
        (button as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement ===
        button
    )
  check(focused, "the confirmation did not put focus on Cancel")
  await page.keyboard.press("Escape")
  await dialog.waitFor({ state: "hidden" })
  await page.getByRole("button", { name: "Forget this memory…" }).click()
  await snap("forget-confirm")
  await dialog.getByRole("button", { name: "Forget", exact: true }).click()
  await page.getByText("Receipt signature verified in your browser").waitFor()
  await snap("forget-receipt")
  const gone = await api.get(uploadedId).then(
    () => false,
    (error: { status?: number }) => error.status === 404
  )
  check(gone, "the forgotten memory is still there")
  await nav(page, "Chain").click()
  await entries.first().filter({ hasText: "Deletion" }).waitFor()

  await page.getByRole("button", { name: "Sign out" }).click()
  await page.getByLabel("API key").waitFor()
  check((await page.evaluate(() => sessionStorage.length)) === 0, "sign-out left the key in sessionStorage")
  return { uploadedId, memoriesListed, chainEntries }
}
