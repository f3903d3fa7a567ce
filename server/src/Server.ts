import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { Embedder } from "@umo/core"
import { configFromEnvironment, Memory, memoryLayer, type UmoConfig } from "@umo/memory"
import { Database, EmbedderChoice, IndexedMemorySearch, SigningKey, StorageStack } from "@umo/plugins"
import { warmUp } from "@umo/plugins/nlp"
import { Config, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar, OpenApi } from "effect/http-api"
import { completeDocument, withAnswerModels } from "./api/OpenApiDocument.js"
import { UmoApi } from "./api/UmoApi.js"
import { AccountHandlers } from "./http/AccountHandlers.js"
import { AskHandlers } from "./http/AskHandlers.js"
import { AuthenticationLive } from "./http/Authentication.js"
import { ConsoleFiles } from "./http/ConsoleFiles.js"
import { FrontDoor } from "./http/FrontDoor.js"
import { InsightHandlers } from "./http/InsightHandlers.js"
import { McpRoute } from "./http/McpRoute.js"
import { MemoriesHandlers } from "./http/MemoriesHandlers.js"
import { createUmoServer } from "./http/NodeHttp.js"
import * as RateLimiter from "./http/RateLimiter.js"
import { requestMiddleware } from "./http/RequestMiddleware.js"
import { SchemaErrorsLive } from "./http/SchemaErrors.js"
import { SystemHandlers } from "./http/SystemHandlers.js"
import { TransfersHandlers } from "./http/TransfersHandlers.js"
import { ensureKeys } from "./keys/Bootstrap.js"
import { Mem0Route } from "./mem0/Mem0Routes.js"

/**
 * The storage stack from the environment (see README), pinned to `embedder`: by default the one
 * `UMO_EMBEDDER` picks.
 */
export const StorageConfig = (
  embedder: Layer.Layer<Embedder, unknown> = EmbedderChoice.layerConfig,
  reembedding: Pick<UmoConfig, "reembed" | "pinnedEmbedder"> = {}
) =>
  Layer.unwrap(
    Effect.map(Config.String("UMO_DATA_DIR").pipe(Config.withDefault("./data")), (dataDir) =>
      StorageStack.layer({
        database: Database.layerConfig,
        signingKey: SigningKey.layerConfig,
        embedder,
        // With the embedder UMO_EMBEDDER picks, a store pinned to another can be re-embedded (UMO_REEMBED=on).
        pinnedEmbedder:
          reembedding.pinnedEmbedder ??
          (embedder === EmbedderChoice.layerConfig ? EmbedderChoice.forPinnedId : undefined),
        reembed: reembedding.reembed,
        // The graphs' snapshots beside the database's files and the key (UMO_INDEX_SNAPSHOT_DIR overrides).
        searchIndex: { snapshotDir: IndexedMemorySearch.snapshotDirIn(dataDir) }
      })
    )
  )

/**
 * `/openapi.json` and the docs page at `/docs`: the API's document, completed (`completeDocument`)
 * and naming the answer models this deployment offers.
 */
const Documented = Layer.unwrap(
  Effect.gen(function* () {
    const models = yield* (yield* Memory).models
    const api = UmoApi.annotate(OpenApi.Transform, (spec) =>
      withAnswerModels(completeDocument(UmoApi)(spec), models)
    )
    return Layer.mergeAll(
      HttpApiBuilder.layer(api, { openapiPath: "/openapi.json" }),
      HttpApiScalar.layer(api, { path: "/docs" })
    )
  })
)

/** Every route of the API: each handler maps a request to one call of the Memory service. */
export const ApiRoutes = Documented.pipe(
  Layer.provide([
    SystemHandlers,
    MemoriesHandlers,
    AskHandlers,
    InsightHandlers,
    AccountHandlers,
    TransfersHandlers
  ]),
  Layer.provide([AuthenticationLive, SchemaErrorsLive])
)

/** The routes, `/` (the front door), `/mcp` and `/console`, served with the request middleware (ids, rate limits, logs, error bodies). */
export const App = HttpRouter.serve(Layer.mergeAll(ApiRoutes, FrontDoor, McpRoute, Mem0Route, ConsoleFiles), {
  middleware: requestMiddleware,
  disableLogger: true
})

/** Listens on `HOST` (127.0.0.1) and `PORT` (8787). */
export const NodeServer = Layer.unwrap(
  Effect.gen(function* () {
    const port = yield* Config.Port("PORT").pipe(Config.withDefault(8787))
    const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
    return NodeHttpServer.layer(() => createUmoServer(), { port, host })
  })
)

/**
 * The language engines load while the server starts (it waits on the database and the embedding
 * model meanwhile), not inside its first capture or search, which would hold every other request
 * for a third of a second (see `warmUp`). The memory service embeds the default categories and the
 * slot sense's examples then too (`memoryLayer`'s `warmUp`): the first capture took 4 to 6 s
 * without it, on two cores with USE lite.
 */
const WarmEngines = Layer.effectDiscard(Effect.forkScoped(Effect.sync(warmUp)))

/**
 * The whole service from the environment: the deployment's configuration (`umo.config.ts`, or the
 * file `UMO_CONFIG` names), storage, keys ensured at start, the language engines, the server.
 */
export const ServerLive = Layer.unwrap(
  Effect.gen(function* () {
    const config = yield* configFromEnvironment
    // A missing model is refused before the data directory or the database is created.
    if (config.embedder === undefined) yield* EmbedderChoice.checkInstalled
    return App.pipe(
      Layer.provide(NodeServer),
      Layer.provide(WarmEngines),
      Layer.provide(RateLimiter.layerConfig),
      Layer.provide(Layer.effectDiscard(ensureKeys)),
      Layer.provide(memoryLayer(config, { warmUp: true })),
      Layer.provideMerge(StorageConfig(config.embedder, config))
    )
  })
)
