import { NodeHttpServer } from "@effect/platform-node"
import { Database, EmbedderChoice, FileParsers, SigningKey, StorageStack } from "@umo/plugins"
import { Config, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { UmoApi } from "./api/UmoApi.js"
import { AccountHandlers } from "./http/AccountHandlers.js"
import { AskHandlers } from "./http/AskHandlers.js"
import { AuthenticationLive } from "./http/Authentication.js"
import { InsightHandlers } from "./http/InsightHandlers.js"
import { MemoriesHandlers } from "./http/MemoriesHandlers.js"
import { createUmoServer } from "./http/NodeHttp.js"
import * as RateLimiter from "./http/RateLimiter.js"
import { requestMiddleware } from "./http/RequestMiddleware.js"
import { SchemaErrorsLive } from "./http/SchemaErrors.js"
import { SystemHandlers } from "./http/SystemHandlers.js"
import { ensureKeys } from "./services/Bootstrap.js"
import * as Insight from "./services/Insight.js"
import * as Memories from "./services/Memories.js"
import * as Recall from "./services/Recall.js"

/** The storage stack and embedder the service runs on, from the environment (see README). */
export const StorageConfig = StorageStack.layer({
  database: Database.layerConfig,
  signingKey: SigningKey.layerConfig,
  embedder: EmbedderChoice.layerConfig
})

/** Every route of the API, with `/openapi.json` and the docs page at `/docs`. */
export const ApiRoutes = Layer.mergeAll(
  HttpApiBuilder.layer(UmoApi, { openapiPath: "/openapi.json" }),
  HttpApiScalar.layer(UmoApi, { path: "/docs" })
).pipe(
  Layer.provide([SystemHandlers, MemoriesHandlers, AskHandlers, InsightHandlers, AccountHandlers]),
  Layer.provide([AuthenticationLive, SchemaErrorsLive, Insight.layer]),
  Layer.provide([Memories.layer, Recall.layer]),
  Layer.provide(FileParsers.layer)
)

/** The routes served with the request middleware (ids, rate limits, logs, error bodies). */
export const App = HttpRouter.serve(ApiRoutes, { middleware: requestMiddleware, disableLogger: true })

/** Listens on `HOST` (127.0.0.1) and `PORT` (8787). */
export const NodeServer = Layer.unwrap(
  Effect.gen(function* () {
    const port = yield* Config.Port("PORT").pipe(Config.withDefault(8787))
    const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
    return NodeHttpServer.layer(() => createUmoServer(), { port, host })
  })
)

/** The whole service from the environment: storage, keys ensured at start, the server. */
export const ServerLive = App.pipe(
  Layer.provide(NodeServer),
  Layer.provide(RateLimiter.layerConfig),
  Layer.provide(Layer.effectDiscard(ensureKeys)),
  Layer.provideMerge(StorageConfig)
)
