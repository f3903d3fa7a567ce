/**
 * Memories out and in through the console: a user's memories (one superseded by a newer one) are
 * captured through the API; in the browser the list is narrowed to that user and exported (the file
 * the browser saves is read back), then, signed in to another account, the file is imported (the
 * proofs verified, the supersession restored), imported again (nothing twice), and Mem0's exports
 * are imported: a JSON document with a bad element (reported by its line, the rest imported) and
 * JSON Lines with a bad line, stopping there. Like the other tours it throws when a step does not
 * show what it should, and calls `snap` on each main view.
 * @module
 */
import { readFile } from "node:fs/promises"
import { UMOClient } from "@umo/client"
import type { Page } from "playwright-core"

export interface TransferTourResult {
  /** The saved file's name and lines, parsed. */
  readonly fileName: string
  readonly lines: ReadonlyArray<{ readonly kind: string; readonly [field: string]: unknown }>
  /** The ids of the captured memories, in capture order. */
  readonly captured: ReadonlyArray<string>
  /** What the console said when the export was done. */
  readonly exportStatus: string
  /** The import into the other account: the counts the summary shows, and the list after it. */
  readonly imported: number
  readonly verified: number
  readonly linked: number
  readonly listedAfterImport: number
  /** The same file again. */
  readonly importedAgain: number
  readonly alreadyHere: number
  /** Mem0's JSON document: imported, failed, and the line the failure names. */
  readonly mem0Imported: number
  readonly mem0Failed: number
  readonly mem0FailureLine: string
  /** Mem0's JSON Lines with "stop at the first bad line". */
  readonly stoppedImported: number
  readonly stoppedBadge: string
  /** The other account's memories at the end, through the API. */
  readonly otherTotal: number
}

const timeout = 60_000

const check = (condition: boolean, message: string) => {
  if (!condition) throw new Error(`transfer tour: ${message}`)
}

const fixed = { inferUpdates: false } as const

/** Mem0's `get_all` JSON, an element a line: the third has no id, so it cannot be imported once. */
const mem0Document = [
  "{",
  '  "results": [',
  '    {"id": "m0-1", "memory": "Erin grows tomatoes on her balcony in Turin.", "user_id": "erin", "created_at": "2024-05-01T10:00:00Z"},',
  '    {"id": "m0-2", "memory": "Erin is learning to play the oboe.", "user_id": "erin", "categories": ["hobbies"]},',
  '    {"memory": "A memory without an id."},',
  '    {"id": "m0-3", "memory": "Erin takes the night train to Vienna every spring.", "user_id": "erin"}',
  "  ]",
  "}",
  ""
].join("\n")

/** Mem0 memories one a line, the second not JSON. */
const mem0Lines = [
  '{"id": "m0-10", "memory": "Finn repairs vintage bicycles in his garage.", "user_id": "finn"}',
  "{this is not JSON",
  '{"id": "m0-11", "memory": "Finn swims in the lake every morning.", "user_id": "finn"}',
  ""
].join("\n")

export const transferTour = async (
  page: Page,
  server: { readonly baseUrl: string; readonly apiKey: string; readonly otherApiKey: string },
  snap: (name: string) => Promise<void> = async () => {}
): Promise<TransferTourResult> => {
  page.setDefaultTimeout(timeout)
  const api = new UMOClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })
  const cello = await api.capture("Cleo plays the cello in a string quartet in Ghent.", {
    userId: "cleo",
    metadata: { topic: "music" },
    ...fixed
  })
  const keeper = await api.capture("Cleo works as a lighthouse keeper on the Frisian coast.", {
    userId: "cleo",
    agentId: "biographer",
    ...fixed
  })
  const sailing = await api.capture("Cleo left the lighthouse and teaches sailing in Den Helder now.", {
    userId: "cleo",
    agentId: "biographer",
    supersedes: [keeper.umoId],
    ...fixed
  })
  await api.capture("Dan collects maps of cities that no longer exist.", { userId: "dan", ...fixed })
  const captured = [cello.umoId, keeper.umoId, sailing.umoId]

  const signIn = async (key: string) => {
    await page.goto(`${server.baseUrl}/console`)
    await page.getByLabel("API key").fill(key)
    await page.getByLabel("API key").press("Enter")
    await page.getByText("Signed in as").waitFor()
  }
  const nav = (name: string) => page.getByRole("navigation").getByRole("link", { name, exact: true })
  const summary = page.locator(".summary-line")

  // Cleo's memories, the superseded one too: what the export saves.
  await signIn(server.apiKey)
  await nav("Memories").click()
  await page.getByLabel("User", { exact: true }).fill("cleo")
  await page.getByRole("button", { name: "Apply scope" }).click()
  await page.getByLabel("Include superseded memories").check()
  await summary.filter({ hasText: "3 memories of user “cleo”, superseded ones included" }).waitFor()
  await page
    .getByText("Saves every memory of user “cleo” (superseded ones included) to a .jsonl file")
    .waitFor()

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Export", exact: true }).click()
  ])
  const fileName = download.suggestedFilename()
  const path = await download.path()
  const text = await readFile(path, "utf8")
  const lines = text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as TransferTourResult["lines"][number])
  const status = page.getByTestId("export-status")
  await status.filter({ hasText: "Exported 3 memories to" }).waitFor()
  const exportStatus = (await status.textContent()) ?? ""
  await snap("export")

  // Another account: the file goes in, proofs checked and the supersession restored.
  await page.getByRole("button", { name: "Sign out" }).click()
  await signIn(server.otherApiKey)
  await nav("Memories").click()
  await page.getByText("No memories yet.").waitFor()
  const dialog = page.getByRole("dialog", { name: "Import memories" })
  const importFile = async (
    file: { name: string; mimeType: string; buffer: Buffer },
    format: string,
    stop = false
  ) => {
    await page.getByRole("button", { name: "Import…" }).click()
    await dialog.waitFor()
    await dialog.getByLabel("File").setInputFiles(file)
    await dialog.getByLabel("Format").selectOption({ label: format })
    await dialog.getByLabel("Stop at the first bad line").setChecked(stop)
    return dialog
  }
  const counted = async (id: string) => Number(await page.getByTestId(id).textContent())
  const section = page.getByRole("region", { name: "Import summary" })

  await importFile(
    { name: fileName, mimeType: "application/x-ndjson", buffer: Buffer.from(text) },
    "UMO export"
  )
  await snap("import-dialog")
  await dialog.getByRole("button", { name: "Import", exact: true }).click()
  await dialog.waitFor({ state: "hidden" })
  await section.getByRole("status").filter({ hasText: "Imported 3 memories" }).waitFor()
  const imported = await counted("imported-count")
  const verified = Number(await section.locator("dt:has-text('Proofs verified') + dd").textContent())
  const linked = Number(await section.locator("dt:has-text('Supersessions restored') + dd").textContent())
  // The list is read anew: the two current copies (the superseded one is linked, so not listed).
  await summary.filter({ hasText: "2 memories, newest first" }).waitFor()
  const rows = page.getByRole("list", { name: "Memories" }).getByRole("listitem")
  const listedAfterImport = await rows.count()
  check(
    (await rows.filter({ hasText: "user cleo" }).count()) === listedAfterImport,
    "an import row is not Cleo's"
  )
  await snap("import-summary")

  // The same file again: nothing is stored twice.
  await importFile(
    { name: fileName, mimeType: "application/x-ndjson", buffer: Buffer.from(text) },
    "Detect from the file"
  )
  await dialog.getByRole("button", { name: "Import", exact: true }).click()
  await section.getByRole("status").filter({ hasText: "Nothing new: 3 memories already here" }).waitFor()
  const importedAgain = await counted("imported-count")
  const alreadyHere = await counted("already-count")

  // Mem0's JSON document: the element without an id fails, by its line; the others come in.
  await importFile(
    { name: "mem0-get-all.json", mimeType: "application/json", buffer: Buffer.from(mem0Document) },
    "Mem0 (JSON or JSON Lines)"
  )
  await dialog.getByRole("button", { name: "Import", exact: true }).click()
  await section.getByRole("status").filter({ hasText: "1 line could not be imported" }).waitFor()
  const mem0Imported = await counted("imported-count")
  const mem0Failed = await counted("failed-count")
  const failure = section.getByRole("list", { name: "Failures" }).getByRole("listitem")
  const mem0FailureLine = (await failure.first().textContent()) ?? ""
  await summary.filter({ hasText: "5 memories, newest first" }).waitFor()
  await snap("import-failures")

  // Mem0's JSON Lines, stopping at the bad line: what came before it is in, nothing after.
  await importFile(
    { name: "mem0.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(mem0Lines) },
    "Detect from the file",
    true
  )
  await dialog.getByRole("button", { name: "Import", exact: true }).click()
  const stopped = section.getByRole("status").filter({ hasText: "Stopped at line 2" })
  await stopped.waitFor()
  const stoppedBadge = (await stopped.textContent()) ?? ""
  const stoppedImported = await counted("imported-count")
  await summary.filter({ hasText: "6 memories, newest first" }).waitFor()

  const other = new UMOClient({ baseUrl: server.baseUrl, apiKey: server.otherApiKey })
  const otherTotal = (await other.list({ includeSuperseded: true })).totalCount
  await page.getByRole("button", { name: "Sign out" }).click()
  await page.getByLabel("API key").waitFor()
  return {
    fileName,
    lines,
    captured,
    exportStatus,
    imported,
    verified,
    linked,
    listedAfterImport,
    importedAgain,
    alreadyHere,
    mem0Imported,
    mem0Failed,
    mem0FailureLine,
    stoppedImported,
    stoppedBadge,
    otherTotal
  }
}
