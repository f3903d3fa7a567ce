import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { machine } from "./Machine.js"
import { writeReadmeSection } from "./Readme.js"

/**
 * Writes a benchmark's figures: `bench/results/<bench>.json` and `.svg` (`<bench>-quick.*` for a
 * quick run, which git ignores) and, after a full run, `table` in bench/README.md under a line
 * naming the machine and the date. Says what it wrote.
 */
export const publishResults = (
  root: string,
  bench: string,
  results: { readonly quick: boolean; readonly machine: ReturnType<typeof machine> },
  svg: string,
  table: string
) => {
  const out = join(root, "bench", "results")
  const name = results.quick ? `${bench}-quick` : bench
  mkdirSync(out, { recursive: true })
  writeFileSync(join(out, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`)
  writeFileSync(join(out, `${name}.svg`), svg)
  const m = results.machine
  if (!results.quick)
    writeReadmeSection(
      root,
      bench,
      `Machine: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}; ${m.date}.\n\n${table}`
    )
  console.log(
    `wrote bench/results/${name}.json and ${name}.svg${results.quick ? "" : " and the table in bench/README.md"}`
  )
}
