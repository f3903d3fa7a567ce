/**
 * bench:categories — how well the categorizer files memories, without a language model: each
 * memory's vector against each category description's, as a capture does (memory's
 * `Categorizer.categoriesOf`), with the server's embedder (UMO_EMBEDDER, default mpnet int8).
 *
 *   npm run bench:categories                      the held-apart sets (bench/categories/*.blind.json)
 *   npm run bench:categories -- --tune            the thresholds' grid on the developers' dev set
 *
 * Precision: of the categories given, the share a careful annotator gave too; recall: of the
 * annotator's, the share given; first: the best-fitting category given is one of the annotator's.
 * The blind sets were written by an annotator who saw neither this code nor the dev set; they are
 * measured, never tuned on.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { type Category, defaultCategories, Embedder } from "@umo/core"
import { Categorizer } from "@umo/memory"
import { EmbedderChoice } from "@umo/plugins"
import { Effect } from "effect"

interface Labelled {
  readonly text: string
  readonly categories: ReadonlyArray<string>
}

const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`../categories/${name}`, import.meta.url), "utf8"))

const sets: ReadonlyArray<{
  readonly name: string
  readonly catalog: ReadonlyArray<Category>
  readonly memories: ReadonlyArray<Labelled>
}> = process.argv.includes("--tune")
  ? [{ name: "dev", catalog: defaultCategories, memories: read("dev.json").memories }]
  : [
      {
        name: "default list (labelled.blind)",
        catalog: defaultCategories,
        memories: read("labelled.blind.json").memories
      },
      {
        name: "custom list (custom.blind)",
        ...(() => {
          const c = read("custom.blind.json")
          return { catalog: c.categories, memories: c.memories }
        })()
      }
    ]

const score = (given: ReadonlyArray<ReadonlyArray<string>>, memories: ReadonlyArray<Labelled>) => {
  let right = 0
  let assigned = 0
  let truth = 0
  let first = 0
  memories.forEach((m, i) => {
    const g = given[i]!
    assigned += g.length
    truth += m.categories.length
    right += g.filter((c) => m.categories.includes(c)).length
    if (g[0] !== undefined && m.categories.includes(g[0])) first += 1
  })
  const precision = right / Math.max(1, assigned)
  const recall = right / Math.max(1, truth)
  return {
    precision: Math.round(precision * 1000) / 10,
    recall: Math.round(recall * 1000) / 10,
    f1: Math.round(((2 * precision * recall) / Math.max(1e-9, precision + recall)) * 1000) / 10,
    first: Math.round((first / memories.length) * 1000) / 10,
    per_memory: Math.round((assigned / memories.length) * 100) / 100
  }
}

const results = await Effect.runPromise(
  Effect.gen(function* () {
    const embedder = yield* Embedder
    const out = []
    for (const set of sets) {
      const texts = set.catalog.map(Categorizer.categoryTexts)
      const catalogVectors = yield* embedder.embed(texts.flat())
      let next = 0
      const catalog = set.catalog.map((c, i) => ({
        name: c.name,
        vectors: texts[i]!.map(() => catalogVectors[next++]!)
      }))
      const vectors = yield* embedder.embed(set.memories.map((m) => m.text))
      if (process.argv.includes("--tune")) {
        const grid = []
        for (const floor of [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35])
          for (const margin of [0, 0.02, 0.03, 0.05, 0.08])
            grid.push({
              floor,
              margin,
              ...score(
                set.memories.map((_, i) =>
                  Categorizer.categoriesOf(catalog, [vectors[i]!], { floor, margin, most: 3 })
                ),
                set.memories
              )
            })
        grid.sort((a, b) => b.f1 - a.f1)
        out.push({ set: set.name, model: embedder.model.id, best: grid.slice(0, 8) })
        continue
      }
      const given = set.memories.map((_, i) => Categorizer.categoriesOf(catalog, [vectors[i]!]))
      out.push({
        set: set.name,
        model: embedder.model.id,
        memories: set.memories.length,
        thresholds: Categorizer.categoryThresholds,
        ...score(given, set.memories)
      })
    }
    return out
  }).pipe(Effect.provide(EmbedderChoice.layerConfig))
)
console.log(JSON.stringify(results, null, 1))
if (!process.argv.includes("--tune"))
  writeFileSync(
    new URL("../results/categories.json", import.meta.url),
    `${JSON.stringify(results, null, 1)}\n`
  )
