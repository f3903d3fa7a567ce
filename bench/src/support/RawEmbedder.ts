import { Embedder } from "@umo/core"
import { EmbedderChoice } from "@umo/plugins"
import { Effect } from "effect"
import { round1 } from "./Stats.js"

/**
 * Raw embedder throughput: the server's embedder (UMO_EMBEDDER / UMO_EMBEDDER_MODEL / precision)
 * in this process, the texts in calls of 100, as a batch capture hands them over — the ceiling of
 * capture, since every memory must be embedded. Run it while no server is busy.
 */
export const rawEmbedder = async (texts: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const embedder = yield* Embedder
      yield* embedder.embed(texts.slice(0, 8)) // warm up: the first call loads the session
      const started = performance.now()
      for (let i = 0; i < texts.length; i += 100) yield* embedder.embed(texts.slice(i, i + 100))
      const seconds = (performance.now() - started) / 1000
      return { model: embedder.model.id, per_second: round1(texts.length / seconds) }
    }).pipe(Effect.provide(EmbedderChoice.layerConfig))
  )
