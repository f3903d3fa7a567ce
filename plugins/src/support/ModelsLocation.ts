/**
 * Where the local models are, whatever the working directory — plain Node, so that the
 * `umo-fetch-models` command (bin/umo-fetch-models.js) finds the same directory on any Node.
 * @module
 */
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The repository checkout this package runs from (`<root>/plugins/{src,dist}/support/`), or
 * undefined when it is installed from its tarball (then `<root>` is `node_modules/@umo`).
 */
export const checkoutRoot: string | undefined = (() => {
  const root = fileURLToPath(new URL("../../../", import.meta.url))
  return existsSync(join(root, "scripts", "fetch-models.sh")) ? root : undefined
})()

type Environment = Readonly<Record<string, string | undefined>>

/** The per-user cache: `$XDG_CACHE_HOME/umo/models`, by default `~/.cache/umo/models`. */
export const userModelsDir = (env: Environment = process.env): string =>
  join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "umo", "models")

/**
 * The models directory: `UMO_MODELS_DIR` when set; else the checkout's `models/` when this package
 * runs from a checkout that has one (`npm install` fills it there); else the per-user cache, which
 * `npx umo-fetch-models` fills. Never relative to the working directory.
 */
export const modelsDir = (env: Environment = process.env): string => {
  const configured = env["UMO_MODELS_DIR"]
  if (configured) return configured
  if (checkoutRoot !== undefined && existsSync(join(checkoutRoot, "models")))
    return join(checkoutRoot, "models")
  return userModelsDir(env)
}

/**
 * The exact command that puts models into that directory, with `flags` (`--fp32`, `--minilm`):
 * `npm run fetch-models` in a checkout, `npx umo-fetch-models` where the packages are installed.
 * Both honour `UMO_MODELS_DIR`.
 */
export const fetchModelsCommand = (flags: ReadonlyArray<string> = []): string =>
  checkoutRoot !== undefined
    ? `npm run fetch-models${flags.length > 0 ? ` -- ${flags.join(" ")}` : ""}`
    : ["npx umo-fetch-models", ...flags].join(" ")
