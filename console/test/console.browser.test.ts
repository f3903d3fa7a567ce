/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the real
 * server started in-process: the whole tour of ConsoleTour.ts, then the scopes of ScopeTour.ts
 * (after it, on the same server: its memories belong to no user) and the export and import of
 * TransferTour.ts (a user of its own, imported into a second account), plus the console's own promises:
 * no request leaves the server's origin, no CSP violation or page error, and each main view passes
 * an axe-core accessibility audit.
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { auditAccessibility, type Violation } from "./support/Accessibility.js"
import { launchChromium, skipBrowserTests, viewport } from "./support/Chromium.js"
import { buildConsole, type ConsoleServer, startConsoleServer } from "./support/ConsoleServer.js"
import { consoleTour } from "./support/ConsoleTour.js"
import { scopeTour } from "./support/ScopeTour.js"
import { transferTour } from "./support/TransferTour.js"

describe.skipIf(skipBrowserTests)("web console in Chromium", () => {
  let browser: Browser | undefined
  let server: ConsoleServer | undefined

  beforeAll(async () => {
    // Chromium first: when it is missing, say so before the slower set-up.
    browser = await launchChromium()
    await buildConsole()
    server = await startConsoleServer()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  }, 60_000)

  /** A fresh page, the problems it reports (errors, CSP violations, requests elsewhere), and an audit per view. */
  const watchedPage = async () => {
    const context = await browser!.newContext({ viewport })
    const page = await context.newPage()
    const problems: Array<string> = []
    const origin = new URL(server!.baseUrl).origin
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
    page.on("console", (message) => {
      // A refused key is logged by Chromium as a failed resource load (401): expected on the way in.
      if (message.type() === "error" && !message.text().includes("401")) problems.push(message.text())
    })
    page.on("request", (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith("data:"))
        problems.push(`request outside the origin: ${request.url()}`)
    })
    const violations: Array<Violation> = []
    const audit = (page: Page) => async (view: string) => {
      violations.push(...(await auditAccessibility(page, view)))
    }
    return { context, page, problems, violations, snap: audit(page) }
  }

  it("signs in, uploads, lists, searches, asks, verifies, shows the chain and forgets", async () => {
    const { context, page, problems, violations, snap } = await watchedPage()
    const result = await consoleTour(page, server!, snap)
    expect(violations).toEqual([])
    expect(result.memoriesListed).toBe(28)
    expect(result.chainEntries).toBeGreaterThanOrEqual(20)
    expect(problems).toEqual([])
    await context.close()
  }, 300_000)

  it("scopes the list, search and ask to a user, shows supersessions and history, and erases a scope", async () => {
    const { context, page, problems, violations, snap } = await watchedPage()
    const result = await scopeTour(page, server!, snap)
    expect(violations).toEqual([])
    // Ana's two current memories; with the toggle, the one the newer memory superseded too.
    expect(result.listed).toBe(2)
    expect(result.listedWithSuperseded).toBe(3)
    // The superseded memory's history: itself, then the memory that replaced it.
    expect(result.history).toEqual([result.oldId, result.newId])
    // The erasure took all three (the superseded one too), and left Ben's two.
    expect(result.erased).toBe(3)
    expect(result.anaLeft).toBe(0)
    expect(result.benLeft).toBe(2)
    expect(problems).toEqual([])
    await context.close()
  }, 300_000)

  it("exports a scope as a file, imports it into another account and imports Mem0's exports", async () => {
    const { context, page, problems, violations, snap } = await watchedPage()
    const result = await transferTour(page, server!, snap)
    expect(violations).toEqual([])
    // The saved file: a header, Cleo's three memories in capture order (not Dan's), the end line.
    expect(result.fileName).toMatch(/^umo-export-console-user-cleo-\d{4}-\d{2}-\d{2}\.jsonl$/)
    expect(result.lines[0]).toMatchObject({ kind: "umo-export", version: 1, account: expect.any(String) })
    expect(result.lines.filter((line) => line.kind === "memory").map((line) => line["umo_id"])).toEqual(
      result.captured
    )
    expect(result.lines.at(-1)).toEqual({ kind: "end", memories: 3 })
    expect(result.exportStatus).toBe(`Exported 3 memories to ${result.fileName}`)
    // Into the other account: all three, proofs verified, the supersession restored; two listed.
    expect(result).toMatchObject({ imported: 3, verified: 3, linked: 1, listedAfterImport: 2 })
    // Again: nothing twice.
    expect(result).toMatchObject({ importedAgain: 0, alreadyHere: 3 })
    // Mem0's document: three in, the element without an id reported by its line.
    expect(result).toMatchObject({ mem0Imported: 3, mem0Failed: 1 })
    expect(result.mem0FailureLine).toMatch(/^Line 5: not a Mem0 memory/)
    // Mem0's lines, stopped at the bad one: the line before it is in, the one after is not.
    expect(result.stoppedBadge).toContain("Stopped at line 2")
    expect(result.stoppedImported).toBe(1)
    expect(result.otherTotal).toBe(7)
    expect(problems).toEqual([])
    await context.close()
  }, 300_000)
})
