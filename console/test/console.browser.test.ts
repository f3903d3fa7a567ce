/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the real
 * server started in-process: the whole tour of ConsoleTour.ts, plus the console's own promises:
 * no request leaves the server's origin, no CSP violation or page error, and each main view passes
 * an axe-core accessibility audit.
 */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { auditAccessibility, type Violation } from "./support/Accessibility.js"
import { launchChromium, skipBrowserTests, viewport } from "./support/Chromium.js"
import { buildConsole, type ConsoleServer, startConsoleServer } from "./support/ConsoleServer.js"
import { consoleTour } from "./support/ConsoleTour.js"

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

  it("signs in, uploads, lists, searches, asks, verifies, shows the chain and forgets", async () => {
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
    const result = await consoleTour(page, server!, async (view) => {
      violations.push(...(await auditAccessibility(page, view)))
    })
    expect(violations).toEqual([])
    expect(result.memoriesListed).toBe(28)
    expect(result.chainEntries).toBeGreaterThanOrEqual(20)
    expect(problems).toEqual([])
    await context.close()
  }, 300_000)
})
