import { type ErasureReceipt, MemoryStore } from "@umo/core"
import { Config, Duration, Effect, Schedule } from "effect"
import { storeUnavailable, type Unavailable } from "../Errors.js"

/** How often the sweeper looks for expired memories, in seconds (0: never, for a process that only reads). */
export const sweepSecondsConfig = Config.Number("UMO_EXPIRY_SWEEP_SECONDS").pipe(Config.withDefault(60))

/** How many expired memories one sweep erases at most before it looks again. */
const batchSize = 500

/** What one account lost to a sweep: the signed erasure receipt (claims `reason: "expired"`). */
export interface Expired {
  readonly account_id: string
  readonly erasure: ErasureReceipt
}

/**
 * Erases expired memories, in batches of 500 until none is left: each batch one signed erasure
 * receipt per account, as an erasure by a caller (its claims say `reason: "expired"`). Reads
 * already leave an expired memory out the instant it expires; this takes its content and vectors
 * away for good, and records that in the chain. `onExpired` hears each account's receipt.
 */
export const make = (onExpired: (expired: Expired) => Effect.Effect<void> = () => Effect.void) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const sweep: Effect.Effect<ReadonlyArray<Expired>, Unavailable> = Effect.gen(function* () {
      const all: Array<Expired> = []
      while (true) {
        const swept = yield* store.sweepExpired(batchSize).pipe(Effect.catch(storeUnavailable))
        yield* Effect.forEach(swept, onExpired, { discard: true })
        all.push(...swept)
        if (swept.reduce((n, s) => n + s.erasure.forgotten, 0) < batchSize) return all
      }
    })
    /** Sweeps every `seconds` while the scope lasts; a failed sweep is logged and tried again next time. */
    const run = (seconds: number) =>
      seconds <= 0
        ? Effect.void
        : Effect.forkScoped(
            sweep.pipe(
              Effect.catchCause((cause) => Effect.logWarning("expiry sweep failed; next one retries", cause)),
              Effect.repeat(Schedule.spaced(Duration.seconds(seconds)))
            )
          ).pipe(Effect.asVoid)
    return { sweep, run }
  })
