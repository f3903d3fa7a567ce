/**
 * Imported first by the examples: on a Node older than the 22.19 UMO needs (Node 20 on many
 * machines), runs the example again, with the same arguments and loader (tsx), on the Node 24 that
 * scripts/ensure-node.sh keeps in the checkout's .cache/node (fetching it once), and ends as it
 * ends. It runs before the packages are evaluated, so the old Node never gets to them. In an app
 * of your own, run it on Node 22.19 or newer instead (`npx umo …` re-runs itself the same way).
 * @module
 */
import { execFileSync, spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  const ensureNode = fileURLToPath(new URL("../scripts/ensure-node.sh", import.meta.url))
  const bin = execFileSync("bash", [ensureNode], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"]
  }).trim()
  // Synchronous: nothing else of the example may run on this Node meanwhile.
  const run = spawnSync(`${bin}/node`, [...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" })
  if (run.error !== undefined) throw run.error
  if (run.signal !== null) process.kill(process.pid, run.signal)
  process.exit(run.status ?? 1)
}
