import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { UmoApi } from "./api/UmoApi.js"
import { SystemHandlers } from "./http/SystemHandlers.js"

/** The API's routes with their handlers, without a listening socket (tests serve it themselves). */
export const ApiRoutes = HttpApiBuilder.layer(UmoApi).pipe(Layer.provide(SystemHandlers))

/** Listens on `HOST` (127.0.0.1) and `PORT` (8787). */
export const NodeServer = Layer.unwrap(
  Effect.gen(function* () {
    const port = yield* Config.Port("PORT").pipe(Config.withDefault(8787))
    const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
    return NodeHttpServer.layer(createServer, { port, host })
  })
)

export const ServerLive = HttpRouter.serve(ApiRoutes).pipe(Layer.provide(NodeServer))
