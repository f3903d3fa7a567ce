import type { EmbedderShape } from "@umo/core"
import { Effect } from "effect"

/**
 * An embedder that answers with one model until a re-embedding's switch tells it to answer with
 * another (see `Reembedding`). Whoever reads `model` reads the current one; a caller that labels
 * vectors with the model (the embed plugin) checks it again after embedding, since a switch may
 * land between the two.
 */
export interface SwitchingEmbedder {
  readonly embedder: EmbedderShape
  readonly switchTo: (next: EmbedderShape) => void
}

export const makeSwitchingEmbedder = (initial: EmbedderShape): SwitchingEmbedder => {
  let current = initial
  return {
    embedder: {
      get model() {
        return current.model
      },
      embed: (texts, options) => Effect.suspend(() => current.embed(texts, options))
    },
    switchTo: (next) => {
      current = next
    }
  }
}
