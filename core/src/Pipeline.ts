import { Clock, Effect, Result, Schema } from "effect"
import { type Draft, makeDraft } from "./Draft.js"
import { contentHash, semanticHash } from "./Hashing.js"
import { PipelineError } from "./PipelineError.js"
import { makePlugin, type Plugin, PluginOptionsError, type PluginServices } from "./Plugin.js"
import { type Stage, stageIndex } from "./Stage.js"
import { type CaptureInput, type PluginVersion, Umo } from "./Umo.js"
import { makeUmoId } from "./UmoId.js"

/**
 * A frozen, ordered list of plugins over the seven stages. Built once with `make`; every run
 * goes through the same plugins in the same order.
 */
export interface Pipeline<R> {
  readonly plugins: ReadonlyArray<Plugin<R>>
  /** Names, versions and stages of the plugins, recorded on every UMO. */
  readonly versions: ReadonlyArray<PluginVersion>
  /** Runs every plugin over a draft, stopping at the first failure or fatal message. */
  readonly runDraft: (draft: Draft) => Effect.Effect<Draft, PipelineError, R>
  /** Captures one piece of content: runs the plugins and assembles the hashed UMO. */
  readonly process: (input: CaptureInput) => Effect.Effect<Umo, PipelineError, R>
  /**
   * Re-runs the pipeline on already-normalized content and returns the semantic hash it yields,
   * which equals the stored one when the memory was captured by this pipeline version.
   */
  readonly reproduceSemanticHash: (stored: {
    readonly content: string
    readonly source: string | null
    readonly timestamp: string
  }) => Effect.Effect<string, PipelineError, R>
}

/** The UMO's schema but for its vectors (which the Embedder has checked: one per chunk, of its dimension). */
const { embedding: _embedding, ...checkedFields } = Umo.fields
const checkUmo = Schema.decodeUnknownResult(Schema.Struct(checkedFields))

const pipelineFailure = (stage: Stage, reason: PipelineError["reason"], detail: string) =>
  new PipelineError({ plugin: "pipeline", stage, reason, detail })

const runPlugin =
  <R>(plugin: Plugin<R>) =>
  (draft: Draft): Effect.Effect<Draft, PipelineError, R> => {
    const named = (reason: PipelineError["reason"], detail: string, cause?: unknown) =>
      new PipelineError({ plugin: plugin.name, stage: plugin.stage, reason, detail, cause })
    const before = draft.messages.length
    return Effect.suspend(() => plugin.run(draft)).pipe(
      Effect.mapError((failure) => named(failure.reason, failure.message, failure.cause)),
      Effect.catchDefect((defect) =>
        Effect.fail(named("Failed", defect instanceof Error ? defect.message : String(defect), defect))
      ),
      Effect.flatMap((next) => {
        // Stamp the messages this plugin added with its name and stage.
        const messages = next.messages.map((m, i) =>
          i >= before && m.plugin === undefined ? { ...m, plugin: plugin.name, stage: plugin.stage } : m
        )
        const fatal = messages.slice(before).find((m) => m.level === "fatal")
        return fatal ? Effect.fail(named("InvalidInput", fatal.text)) : Effect.succeed({ ...next, messages })
      }),
      Effect.withSpan(`umo.plugin.${plugin.name}`, { attributes: { stage: plugin.stage } })
    )
  }

/** What a UMO carries from its capture's input, not from the plugins: who it belongs to and its tags. */
const carried = (input: CaptureInput) => ({
  user_id: input.scope?.user_id ?? null,
  agent_id: input.scope?.agent_id ?? null,
  session_id: input.scope?.session_id ?? null,
  metadata: input.metadata ?? {}
})

const assemble = (
  draft: Draft,
  versions: ReadonlyArray<PluginVersion>,
  identity: { readonly umo_id: string; readonly created_at: string },
  input: CaptureInput
): Effect.Effect<Umo, PipelineError> => {
  const missing = (
    [
      ["summary", "enrich"],
      ["tone", "enrich"],
      ["language", "normalize"],
      ["embedding", "embed"],
      ["quality_score", "validate"]
    ] as const
  ).find(([field]) => draft[field] === null)
  if (missing) {
    return Effect.fail(pipelineFailure(missing[1], "Failed", `no plugin set the draft's ${missing[0]}`))
  }
  const fields = {
    summary: draft.summary!,
    entities: draft.entities,
    svo_triples: draft.svo_triples,
    topics: draft.topics,
    tone: draft.tone!,
    language: draft.language!,
    quality_score: draft.quality_score!,
    extensions: draft.extensions,
    pipeline: versions
  }
  const umo = {
    ...fields,
    umo_id: identity.umo_id,
    content: draft.content,
    source: draft.source,
    ...carried(input),
    timestamp: draft.timestamp,
    created_at: identity.created_at,
    content_hash: contentHash(draft.content),
    semantic_hash: semanticHash(fields),
    embedding: draft.embedding!
  }
  // A record that breaks the UMO's schema (a plugin's tone label that is not one of the three, a
  // score out of range) is refused here, before anything stores it.
  return Result.match(checkUmo(umo), {
    onSuccess: () => Effect.succeed(umo),
    onFailure: (error) =>
      Effect.fail(pipelineFailure("validate", "Failed", `the plugins made an invalid UMO: ${error.message}`))
  })
}

const toIsoTimestamp = (timestamp: Date | undefined, now: number): Effect.Effect<string, PipelineError> => {
  const date = timestamp ?? new Date(now)
  return Number.isNaN(date.getTime())
    ? Effect.fail(pipelineFailure("capture", "InvalidInput", "timestamp is not a valid date"))
    : Effect.succeed(date.toISOString())
}

/**
 * Builds a pipeline. Plugins are ordered by stage (capture → normalize → extract → enrich → parse
 * → embed → validate); plugins of one stage keep the order given. Plugin names must be unique.
 */
// biome-ignore lint/suspicious/noExplicitAny: any service set; the result type collects them
export const make = <const P extends ReadonlyArray<Plugin<any>>>(
  plugins: P
): Pipeline<PluginServices<P[number]>> => {
  type R = PluginServices<P[number]>
  const seen = new Set<string>()
  for (const plugin of plugins) {
    // A plugin written as a plain object is checked here as a factory would have (name, version, stage).
    makePlugin(plugin)
    if (seen.has(plugin.name)) {
      throw new PluginOptionsError({ plugin: plugin.name, detail: "two plugins share this name" })
    }
    seen.add(plugin.name)
  }
  const ordered = plugins
    .map((plugin, position) => ({ plugin: plugin as Plugin<R>, position }))
    .sort((a, b) => stageIndex(a.plugin.stage) - stageIndex(b.plugin.stage) || a.position - b.position)
    .map(({ plugin }) => plugin)
  const versions = Object.freeze(ordered.map(({ name, version, stage }) => ({ name, version, stage })))
  const steps = ordered.map(runPlugin)

  const runDraft = (draft: Draft): Effect.Effect<Draft, PipelineError, R> =>
    steps.reduce<Effect.Effect<Draft, PipelineError, R>>(
      (acc, step) => Effect.flatMap(acc, step),
      Effect.succeed(draft)
    )

  const process = (input: CaptureInput): Effect.Effect<Umo, PipelineError, R> =>
    Effect.gen(function* () {
      if (typeof input?.content !== "string") {
        return yield* pipelineFailure("capture", "InvalidInput", "content must be a string")
      }
      const now = yield* Clock.currentTimeMillis
      const timestamp = yield* toIsoTimestamp(input.timestamp, now)
      const draft = yield* runDraft(
        makeDraft({ content: input.content, source: input.source ?? null, timestamp })
      )
      return yield* assemble(
        draft,
        versions,
        { umo_id: makeUmoId(now), created_at: new Date(now).toISOString() },
        input
      )
    }).pipe(Effect.withSpan("umo.pipeline.process"))

  const reproduceSemanticHash: Pipeline<R>["reproduceSemanticHash"] = (stored) =>
    Effect.gen(function* () {
      const draft = yield* runDraft(
        makeDraft({ content: stored.content, source: stored.source, timestamp: stored.timestamp })
      )
      const umo = yield* assemble(
        draft,
        versions,
        { umo_id: "", created_at: "" },
        { content: stored.content }
      )
      return umo.semantic_hash
    })

  return { plugins: Object.freeze(ordered), versions, runDraft, process, reproduceSemanticHash }
}
