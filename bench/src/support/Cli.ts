/** What every benchmark script shares: the repository root, its arguments and its progress line. */
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root (this file is bench/src/support/Cli.ts). */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The value after `--name` on the command line, if any. */
export const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? undefined : process.argv[at + 1]
}

export const quick = process.argv.includes("--quick")

/** One progress line on stderr, rewritten in place. */
export const progress = (text: string) => process.stderr.write(`\r${text.padEnd(100)}`)
