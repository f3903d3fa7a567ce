import { it } from "@effect/vitest"
import {
  addMessage,
  type Draft,
  Embedder,
  isUmoId,
  makeDraft,
  makeEmbedder,
  makePlugin,
  Pipeline,
  PipelineError,
  type Plugin,
  PluginFailure,
  PluginOptionsError,
  type Stage
} from "@umo/core"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { describe, expect } from "vitest"

// A tiny complete pipeline whose plugins record the order they ran in.
const tracing = (name: string, stage: Stage, change: (d: Draft) => Partial<Draft> = () => ({})): Plugin =>
  makePlugin({
    name,
    version: "1.0.0",
    stage,
    run: (draft) =>
      Effect.succeed({
        ...draft,
        ...change(draft),
        extensions: {
          ...draft.extensions,
          trace: [...((draft.extensions["trace"] as Array<string>) ?? []), name]
        }
      })
  })

const embedding = makePlugin({
  name: "fake-embed",
  version: "1.0.0",
  stage: "embed",
  run: (draft: Draft) =>
    Effect.gen(function* () {
      const embedder = yield* Embedder
      const [vector] = yield* embedder.embed([draft.content]).pipe(Effect.orDie)
      return {
        ...draft,
        embedding: {
          model: embedder.model.id,
          dimensions: 2,
          chunks: [{ start: 0, end: draft.content.length, vector: vector! }]
        }
      }
    })
})

const complete: ReadonlyArray<Plugin<Embedder>> = [
  tracing("validate-step", "validate", () => ({ quality_score: 0.5 })),
  tracing("enrich-step", "enrich", (d) => ({ summary: d.content, tone: { label: "neutral", score: 0 } })),
  embedding,
  tracing("normalize-step", "normalize", (d) => ({ content: d.content.trim(), language: "eng" })),
  tracing("extract-a", "extract"),
  tracing("extract-b", "extract")
]

const TwoDimensions = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "two-d", dimensions: 2, maxChunkChars: 100 },
    embedBatch: (texts) => Effect.succeed(texts.map((t) => [t.length, 1]))
  })
)

const pluginAt = (stage: Stage, run: Plugin["run"]): Plugin =>
  makePlugin({ name: "breaker", version: "1.0.0", stage, run })

describe("Pipeline.make", () => {
  it("orders plugins by stage, keeping the given order within a stage", () => {
    const pipeline = Pipeline.make(complete)
    expect(pipeline.versions.map((v) => v.name)).toEqual([
      "normalize-step",
      "extract-a",
      "extract-b",
      "enrich-step",
      "fake-embed",
      "validate-step"
    ])
  })

  it("rejects two plugins with one name", () => {
    expect(() => Pipeline.make([tracing("same", "extract"), tracing("same", "enrich")])).toThrow(
      PluginOptionsError
    )
  })

  it.effect("assembles a hashed UMO with a time-ordered id from the clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.UTC(2026, 4, 1, 12))
      const umo = yield* Pipeline.make(complete).process({ content: "  Ada wrote code.  ", source: "notes" })
      expect(isUmoId(umo.umo_id)).toBe(true)
      expect(umo.created_at).toBe("2026-05-01T12:00:00.000Z")
      expect(umo.timestamp).toBe(umo.created_at)
      expect(umo.content).toBe("Ada wrote code.")
      expect(umo.source).toBe("notes")
      expect(umo.content_hash).toMatch(/^[0-9a-f]{64}$/)
      expect(umo.extensions["trace"]).toEqual([
        "normalize-step",
        "extract-a",
        "extract-b",
        "enrich-step",
        "validate-step"
      ])
      expect(umo.embedding.chunks[0]!.vector).toHaveLength(2)
    }).pipe(Effect.provide(TwoDimensions))
  )

  it.effect("keeps a given timestamp and rejects an invalid one at the capture stage", () =>
    Effect.gen(function* () {
      const pipeline = Pipeline.make(complete)
      const umo = yield* pipeline.process({ content: "x", timestamp: new Date("2020-02-02T02:02:02Z") })
      expect(umo.timestamp).toBe("2020-02-02T02:02:02.000Z")
      const error = yield* Effect.flip(pipeline.process({ content: "x", timestamp: new Date("nope") }))
      expect(error).toMatchObject({ stage: "capture", reason: "InvalidInput" })
    }).pipe(Effect.provide(TwoDimensions))
  )

  it.effect("names the plugin and stage of a failure", () =>
    Effect.gen(function* () {
      const pipeline = Pipeline.make([
        ...complete,
        pluginAt("parse", () =>
          Effect.fail(new PluginFailure({ reason: "Failed", message: "parser exploded" }))
        )
      ])
      const error = yield* Effect.flip(pipeline.process({ content: "hello" }))
      expect(error).toBeInstanceOf(PipelineError)
      expect(error).toMatchObject({
        plugin: "breaker",
        stage: "parse",
        reason: "Failed",
        detail: "parser exploded"
      })
      expect(error.message).toBe('parse plugin "breaker": parser exploded')
    }).pipe(Effect.provide(TwoDimensions))
  )

  it.effect("turns a defect thrown inside a plugin into a named PipelineError", () =>
    Effect.gen(function* () {
      const pipeline = Pipeline.make([
        ...complete,
        pluginAt("extract", () => {
          throw new RangeError("index out of range")
        })
      ])
      const error = yield* Effect.flip(pipeline.process({ content: "hello" }))
      expect(error).toMatchObject({
        plugin: "breaker",
        stage: "extract",
        reason: "Failed",
        detail: "index out of range"
      })
    }).pipe(Effect.provide(TwoDimensions))
  )

  it.effect("stamps messages with their plugin and stops on a fatal one", () =>
    Effect.gen(function* () {
      const warn = pluginAt("enrich", (d) => Effect.succeed(addMessage(d, "warning", "looks odd")))
      const draft = yield* Pipeline.make([warn]).runDraft(
        makeDraft({ content: "x", source: null, timestamp: "2026-01-01T00:00:00.000Z" })
      )
      expect(draft.messages).toEqual([
        { level: "warning", text: "looks odd", plugin: "breaker", stage: "enrich" }
      ])

      const fatal = pluginAt("normalize", (d) => Effect.succeed(addMessage(d, "fatal", "nothing to keep")))
      const error = yield* Effect.flip(Pipeline.make([...complete, fatal]).process({ content: "hello" }))
      expect(error).toMatchObject({
        plugin: "breaker",
        stage: "normalize",
        reason: "InvalidInput",
        detail: "nothing to keep"
      })
    }).pipe(Effect.provide(TwoDimensions))
  )

  it.effect("fails naming the stage whose field no plugin set", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Pipeline.make(complete.filter((p) => p.stage !== "embed")).process({ content: "x" })
      )
      expect(error).toMatchObject({ plugin: "pipeline", stage: "embed", reason: "Failed" })
    }).pipe(Effect.provide(TwoDimensions))
  )

  it.effect("reproduces the semantic hash from stored content", () =>
    Effect.gen(function* () {
      const pipeline = Pipeline.make(complete)
      const umo = yield* pipeline.process({ content: "Ada wrote code." })
      const again = yield* pipeline.reproduceSemanticHash(umo)
      expect(again).toBe(umo.semantic_hash)
    }).pipe(Effect.provide(TwoDimensions))
  )
})
