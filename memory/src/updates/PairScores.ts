/** Pair scores kept: a memory's text never changes under its id, so neither does a pair's score. */
const scoresKept = 20_000

/** The key of a pair of memories, earlier first. */
export const pairKey = (earlier: { readonly umo_id: string }, newer: { readonly umo_id: string }) =>
  `${earlier.umo_id}>${newer.umo_id}`

/**
 * The update judge's scores of pairs, kept by pair (the oldest go first past `scoresKept`): what
 * search's currency pass and the later related links ask the judge, each asked once.
 */
export const pairScores = () => {
  const kept = new Map<string, number>()
  return {
    get: (key: string): number | undefined => kept.get(key),
    has: (key: string): boolean => kept.has(key),
    keep: (key: string, score: number): void => {
      if (kept.size >= scoresKept) kept.delete(kept.keys().next().value!)
      kept.set(key, score)
    }
  }
}
