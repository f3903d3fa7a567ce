/**
 * Refuses a Node older than 22.19 when this package is imported, saying which Node is needed and
 * how to run on it. Without it, the first sign would be a `SyntaxError` from deep inside (the fact
 * patterns reuse a group name across alternatives, which older engines reject) or a missing
 * built-in later on. Each entry of the package imports this module first, so it runs before the
 * rest is evaluated; it is written to run on any Node.
 * @module
 */
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)

if (major < 22 || (major === 22 && minor < 19)) {
  throw new Error(
    `UMO's packages need Node 22.19 or newer, and this is Node ${process.versions.node} (${process.execPath}). ` +
      "Run your program with a newer Node (Node 24 LTS), for example `npx -y node@24 your-script.mjs`; " +
      "the `umo` command of @umo/server does that for itself."
  )
}
