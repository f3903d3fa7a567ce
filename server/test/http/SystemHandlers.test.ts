import { NodeHttpServer } from "@effect/platform-node"
import { it } from "@effect/vitest"
import { ApiRoutes, UmoApi } from "@umo/server"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { describe, expect } from "vitest"

const TestServer = HttpRouter.serve(ApiRoutes).pipe(Layer.provideMerge(NodeHttpServer.layerTest))

describe("system handlers", () => {
  it.layer(TestServer)((it) => {
    it.effect("GET /health answers healthy, without a key", () =>
      Effect.gen(function* () {
        const client = yield* HttpApiClient.make(UmoApi)
        expect(yield* client.system.health()).toEqual({ status: "healthy" })
      })
    )
  })
})
