/** What every benchmark script shares: the repository root, its arguments and its progress line. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { SigningKey } from "@umo/plugins"

/** The repository root (this file is bench/src/support/Cli.ts). */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** Where `fetch-models` put the models: `UMO_MODELS_DIR`, default `<root>/models`. */
export const modelsDir = process.env["UMO_MODELS_DIR"] ?? join(root, "models")

/** The value after `--name` on the command line, if any. */
export const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? undefined : process.argv[at + 1]
}

export const quick = process.argv.includes("--quick")

/** One progress line on stderr, rewritten in place. */
export const progress = (text: string) => process.stderr.write(`\r${text.padEnd(100)}`)

/**
 * The benchmarks' signing key (PEM), kept in `.cache/bench-signing-key.pem`: a database signs with
 * one key, so every server and storage stack a benchmark starts on it — in this run or a later one
 * that tops up a kept database — gets this one as `UMO_SIGNING_KEY`.
 */
export const benchSigningKey = (): string => {
  const file = join(root, ".cache", "bench-signing-key.pem")
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, SigningKey.generatePem(), { mode: 0o600, flag: "wx" })
  }
  return readFileSync(file, "utf8")
}
