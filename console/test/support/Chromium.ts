/**
 * Debian's Chromium, driven by playwright-core (which downloads no browser of its own). CI installs
 * it (.ci/run); elsewhere a missing Chromium fails the browser tests with what to do, unless
 * `UMO_SKIP_BROWSER_TESTS=1` says to skip them.
 * @module
 */
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"

export const chromiumPath = process.env["UMO_CHROMIUM"] ?? "/usr/bin/chromium"

export const skipBrowserTests = process.env["UMO_SKIP_BROWSER_TESTS"] === "1"

/** The console's screenshots and tests use one window size. */
export const viewport = { width: 1280, height: 800 }

/** Launches headless Chromium, or fails saying how to install it (or skip). */
export const launchChromium = async (): Promise<Browser> => {
  if (!existsSync(chromiumPath))
    throw new Error(
      `Chromium is not installed at ${chromiumPath}. Install it (sudo apt-get install -y chromium), ` +
        "or point UMO_CHROMIUM at a Chromium binary, or set UMO_SKIP_BROWSER_TESTS=1 to skip the browser tests."
    )
  // No sandbox: CI runs as root, where Chromium refuses to start with one.
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: ["--no-sandbox"] })
}
