import {
  type Draft,
  type EmbeddedChunk,
  Embedder,
  makePlugin,
  type Plugin,
  PluginFailure,
  pairSafeEnd,
  type Sentence
} from "@umo/core"
import { Effect } from "effect"

/**
 * Splits content into spans of at most `maxChars`, on sentence boundaries where possible; a
 * sentence longer than that is cut at word boundaries. Spans cover the text in order.
 */
export const chunkSpans = (
  content: string,
  sentences: ReadonlyArray<Sentence>,
  maxChars: number
): Array<Sentence> => {
  const units = sentences.length > 0 ? sentences : [{ start: 0, end: content.length }]
  const pieces: Array<Sentence> = []
  for (const unit of units) {
    let start = unit.start
    while (unit.end - start > maxChars) {
      const window = content.slice(start, start + maxChars)
      const cut = window.lastIndexOf(" ")
      const end = pairSafeEnd(content, start + (cut > maxChars / 2 ? cut : maxChars))
      pieces.push({ start, end })
      start = end
    }
    if (unit.end > start) pieces.push({ start, end: unit.end })
  }
  const chunks: Array<Sentence> = []
  for (const piece of pieces) {
    const last = chunks.at(-1)
    if (last && piece.end - last.start <= maxChars)
      chunks[chunks.length - 1] = { start: last.start, end: piece.end }
    else chunks.push(piece)
  }
  return chunks
}

/**
 * The embed stage: embeds the normalized content with the `Embedder` port, in chunks no longer
 * than the model handles well (one chunk for most memories, several for long documents).
 */
export const embed = (): Plugin<Embedder> =>
  makePlugin({
    name: "embed",
    version: "1.0.0",
    stage: "embed",
    run: (draft: Draft) =>
      Effect.gen(function* () {
        const embedder = yield* Embedder
        // The model is read before and after: a re-embedding's switch between the two (see
        // SwitchingEmbedder) would label one model's vectors with the other's name, so it embeds again.
        for (;;) {
          const model = embedder.model
          const spans = chunkSpans(draft.content, draft.sentences, model.maxChunkChars)
          const vectors = yield* embedder
            .embed(spans.map((s) => draft.content.slice(s.start, s.end)))
            .pipe(
              Effect.mapError((e) => new PluginFailure({ reason: "Failed", message: e.message, cause: e }))
            )
          if (embedder.model !== model) continue
          const chunks: Array<EmbeddedChunk> = spans.map((s, i) => ({
            start: s.start,
            end: s.end,
            vector: vectors[i]!
          }))
          return {
            ...draft,
            embedding: { model: model.id, dimensions: model.dimensions, chunks }
          }
        }
      })
  })
