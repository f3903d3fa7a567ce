import { Clock, Context, Effect } from "effect"

/** The id of the request being served; set by the request middleware, echoed as `X-Request-Id`. */
export const RequestId = Context.Reference<string>("@umo/server/RequestId", { defaultValue: () => "" })

/** Wraps an endpoint's payload in the spec's envelope. */
export const envelope = <A>(data: A) =>
  Effect.gen(function* () {
    const request_id = yield* RequestId
    const now = yield* Clock.currentTimeMillis
    return { status: "success" as const, data, request_id, timestamp: new Date(now).toISOString() }
  })
