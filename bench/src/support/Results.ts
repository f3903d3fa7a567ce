import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import type { machine } from "./Machine.js"
import { writeReadmeSection } from "./Readme.js"

/** Where a benchmark's results of one kind (`json`, `svg`) live; a quick run's apart. */
export const resultsFile = (root: string, bench: string, quick: boolean, ext: "json" | "svg") =>
  join(root, "bench", "results", `${quick ? `${bench}-quick` : bench}.${ext}`)

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
  const json = resultsFile(root, bench, results.quick, "json")
  mkdirSync(dirname(json), { recursive: true })
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`)
  writeFileSync(resultsFile(root, bench, results.quick, "svg"), svg)
  const m = results.machine
  if (!results.quick)
    writeReadmeSection(
      root,
      bench,
      `Machine: ${m.cores} cores (${m.cpu}), ${m.memory_gb} GB, Node ${m.node}; ${m.date}.\n\n${table}`
    )
  console.log(
    `wrote ${relative(root, json)} and its .svg${results.quick ? "" : " and the table in bench/README.md"}`
  )
}
