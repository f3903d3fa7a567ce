import {
  type Category,
  canonicalJson,
  defaultCategories,
  Embedder,
  fallbackCategory,
  MemoryStore,
  type Umo
} from "@umo/core"
import { Cache, Duration, Effect, Exit, Option } from "effect"
import { storeUnavailable } from "../Errors.js"

/**
 * How near a memory must be to a category's description, and how close to the nearest one a
 * second or third must come. Chosen on bench/categories/dev.json (written here, read freely); the
 * held-apart sets in bench/categories/*.blind.json measure it (bench:categories).
 */
export const categoryThresholds = { floor: 0.25, margin: 0.03, most: 3 } as const

/** Catalogs embedded lately, by their canonical JSON: the default list, and accounts' own lists. */
const catalogsKept = 64

export interface EmbeddedCategory {
  readonly name: string
  /** Its description whole, and each thing it lists (see `categoryTexts`). */
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>
}

/**
 * What the embedder reads of a category: its name in words with its description whole, and with
 * each thing the description lists ("films, TV series, podcasts"), one text each. A memory is as
 * near the category as it is to the nearest of them: a memory about a podcast is near "podcasts",
 * much nearer than to the average of everything entertainment holds.
 */
export const categoryTexts = (category: Category): ReadonlyArray<string> => {
  const name = category.name.replace(/[_.-]+/g, " ")
  const parts = category.description
    .split(/[,;:()]|\band\b|\bor\b/)
    .map((p) => p.trim())
    .filter((p) => p.length > 2)
  return [`${name}: ${category.description}`, ...new Set(parts.map((p) => `${name}: ${p}`))]
}

const dot = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!
  return sum
}

/** The memory's direction: its chunks' vectors averaged (a long text is about all of them), unit length. */
const memoryVector = (chunks: ReadonlyArray<ReadonlyArray<number>>): ReadonlyArray<number> | undefined => {
  if (chunks.length === 0) return undefined
  const mean = new Array<number>(chunks[0]!.length).fill(0)
  for (const chunk of chunks) for (let i = 0; i < mean.length; i++) mean[i]! += chunk[i]!
  const norm = Math.hypot(...mean)
  return norm === 0 ? undefined : mean.map((x) => x / norm)
}

/**
 * The categories of a memory among `catalog`: the nearest description, and up to two more nearly
 * as near, best first; none near enough gives `misc` where the list has it (the default list
 * does), else nothing. No language model: the embedder's vectors the memory already has, and one
 * embedding of each description, kept.
 */
export const categoriesOf = (
  catalog: ReadonlyArray<EmbeddedCategory>,
  chunks: ReadonlyArray<ReadonlyArray<number>>,
  thresholds: { readonly floor: number; readonly margin: number; readonly most: number } = categoryThresholds
): ReadonlyArray<string> => {
  const vector = memoryVector(chunks)
  const fallback = catalog.some((c) => c.name === fallbackCategory) ? [fallbackCategory] : []
  if (vector === undefined) return fallback
  const ranked = catalog
    .filter((c) => c.name !== fallbackCategory)
    .map((c) => ({ name: c.name, score: Math.max(...c.vectors.map((v) => dot(vector, v))) }))
    .sort((a, b) => b.score - a.score)
  const best = ranked[0]
  if (best === undefined || best.score < thresholds.floor) return fallback
  return ranked
    .filter((c) => c.score >= thresholds.floor && c.score >= best.score - thresholds.margin)
    .slice(0, thresholds.most)
    .map((c) => c.name)
}

/**
 * Files captured memories under categories: the account's own list (`PUT /v1/account/categories`)
 * or Mem0's default fifteen, or a list a capture brings (`custom_categories`).
 */
export const make = Effect.gen(function* () {
  const embedder = yield* Embedder
  const store = yield* MemoryStore
  // Kept by model and catalog (its canonical JSON, read back by the lookup): after a
  // re-embedding's switch the other model's vectors are stale. Captures arriving while a catalog is
  // being embedded (the start-up warm-up, a first burst) wait for that one embedding; a failed one
  // is not kept.
  const embedded = yield* Cache.makeWith(
    (key: string) =>
      Effect.gen(function* () {
        const catalog: ReadonlyArray<Category> = JSON.parse(key.slice(key.indexOf("\n") + 1))
        const texts = catalog.map(categoryTexts)
        const vectors = yield* embedder.embed(texts.flat()).pipe(Effect.orDie)
        let next = 0
        return catalog.map(
          (c, i): EmbeddedCategory => ({ name: c.name, vectors: texts[i]!.map(() => vectors[next++]!) })
        )
      }),
    {
      capacity: catalogsKept,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
    }
  )
  const embedCatalog = (catalog: ReadonlyArray<Category>) =>
    Cache.get(embedded, `${embedder.model.id}\n${canonicalJson(catalog)}`)

  /** The account's list: its own, else the default one. */
  const listOf = (accountId: string) =>
    Effect.map(
      store.categoryList(accountId).pipe(Effect.catch(storeUnavailable)),
      Option.getOrElse((): ReadonlyArray<Category> => defaultCategories)
    )

  /** How a capture files its memories: under the categories it names, else chosen from `catalog`. */
  const forList = (catalog: ReadonlyArray<Category>) =>
    Effect.map(
      embedCatalog(catalog),
      (embeddedCatalog) =>
        (umo: Umo, named?: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
          named !== undefined
            ? [...new Set(named)]
            : categoriesOf(
                embeddedCatalog,
                umo.embedding.chunks.map((c) => c.vector)
              )
    )

  return { forList, listOf }
})
