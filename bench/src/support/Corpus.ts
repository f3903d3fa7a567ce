/**
 * Deterministic benchmark corpora: texts drawn with a seeded generator from the LoCoMo turns in
 * ../shared/bench-data/locomo, so every run (and every machine) measures the same texts.
 */
import { dataDir, load, memoryText } from "../recall/LoCoMo.js"

/** mulberry32: a small, fast, seeded PRNG (uniform in [0, 1)). */
export const seeded = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `count` turns' texts, drawn with replacement from all LoCoMo turns with `seed`. */
export const turnTexts = (root: string, count: number, seed = 42): Array<string> => {
  const turns = load(dataDir(root)).turns
  const random = seeded(seed)
  return Array.from({ length: count }, () => memoryText(turns[Math.floor(random() * turns.length)]!))
}
