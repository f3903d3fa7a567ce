import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * Replaces the block between `<!-- NAME:start -->` and `<!-- NAME:end -->` in `file` with
 * `markdown` (appending the block when it is missing), so the tables always come from a run.
 */
export const writeMarkedSection = (file: string, name: string, markdown: string) => {
  const text = readFileSync(file, "utf8")
  const block = `<!-- ${name}:start -->\n${markdown}\n<!-- ${name}:end -->`
  const pattern = new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`)
  writeFileSync(file, pattern.test(text) ? text.replace(pattern, block) : `${text.trimEnd()}\n\n${block}\n`)
}

/** The section NAME of bench/README.md. */
export const writeReadmeSection = (root: string, name: string, markdown: string) =>
  writeMarkedSection(join(root, "bench", "README.md"), name, markdown)
