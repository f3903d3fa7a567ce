/**
 * `npm run console:screenshots`: builds the console, starts the real server in-process on a fresh
 * data directory, walks the console's tour in Chromium (the browser test's own steps) and saves the
 * main views as 1280×800 PNGs in docs/console/; then the scope tour's (a user's memories, a memory's
 * history, erasing a scope) on the same server.
 * @module
 */
import { mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { launchChromium, viewport } from "../test/support/Chromium.js"
import { buildConsole, startConsoleServer } from "../test/support/ConsoleServer.js"
import { consoleTour } from "../test/support/ConsoleTour.js"
import { scopeTour } from "../test/support/ScopeTour.js"

const out = fileURLToPath(new URL("../../docs/console/", import.meta.url))
mkdirSync(out, { recursive: true })

const browser = await launchChromium()
await buildConsole()
const server = await startConsoleServer()
try {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 })
  const page = await context.newPage()
  const saved: Array<string> = []
  const snap = async (name: string) => {
    const path = `${out}${name}.png`
    // Let focus rings and transitions settle, so the picture shows the view at rest.
    await page.waitForTimeout(150)
    await page.screenshot({ path })
    saved.push(path)
  }
  await consoleTour(page, server, snap)
  await scopeTour(page, server, snap)
  console.log(`saved ${saved.length} screenshots:\n${saved.join("\n")}`)
} finally {
  await browser.close()
  await server.stop()
}
