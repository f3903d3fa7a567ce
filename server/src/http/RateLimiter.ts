import { Clock, Config, Context, Effect, Layer } from "effect"

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the bucket is full again (`RateLimit-Reset`). */
  readonly resetSeconds: number
  /** Seconds until one more request is allowed (`Retry-After`), 0 when allowed. */
  readonly retryAfterSeconds: number
}

/**
 * A token bucket per caller (API key, or address for unauthenticated calls): `perMinute` requests
 * a minute, refilled continuously, bursts up to `perMinute`. Kept in this process's memory.
 */
export const make = (perMinute: number) =>
  Effect.gen(function* () {
    const buckets = new Map<string, { tokens: number; at: number }>()
    const ratePerMs = perMinute / 60_000
    const take = (caller: string) =>
      Effect.map(Clock.currentTimeMillis, (now): RateDecision => {
        const bucket = buckets.get(caller) ?? { tokens: perMinute, at: now }
        const tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * ratePerMs)
        const allowed = tokens >= 1
        const left = allowed ? tokens - 1 : tokens
        buckets.set(caller, { tokens: left, at: now })
        // Forget full buckets now and then, so idle callers do not accumulate.
        if (buckets.size > 50_000)
          for (const [k, b] of buckets) if (b.tokens >= perMinute - 1) buckets.delete(k)
        return {
          allowed,
          limit: perMinute,
          remaining: Math.floor(left),
          resetSeconds: Math.ceil((perMinute - left) / ratePerMs / 1000),
          retryAfterSeconds: allowed ? 0 : Math.ceil((1 - left) / ratePerMs / 1000)
        }
      })
    return { take }
  })

export class RateLimiter extends Context.Service<RateLimiter, Effect.Success<ReturnType<typeof make>>>()(
  "@umo/server/RateLimiter"
) {}

export const layer = (perMinute: number) => Layer.effect(RateLimiter, make(perMinute))

/** `UMO_RATE_LIMIT_PER_MINUTE` (default 600). */
export const layerConfig = Layer.unwrap(
  Effect.map(Config.Int("UMO_RATE_LIMIT_PER_MINUTE").pipe(Config.withDefault(600)), layer)
)
