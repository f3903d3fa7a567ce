import { createHmac } from "node:crypto"
import { type DueWebhook, type LedgerEntry, type WebhookEvent, WebhookStore } from "@umo/core"
import { Config, Duration, Effect, Schedule } from "effect"

/** How often the deliverer looks for webhooks with something to deliver, in ms (0: never). */
export const pollMsConfig = Config.Number("UMO_WEBHOOK_POLL_MS").pipe(Config.withDefault(1_000))
/** The first retry's wait after a failed delivery, in seconds; each retry doubles it, up to an hour. */
export const retrySecondsConfig = Config.Number("UMO_WEBHOOK_RETRY_SECONDS").pipe(Config.withDefault(5))

/** How long a receiver has to answer one delivery. */
const deliveryTimeoutMs = 10_000

/** One event as it is posted: what happened, to which memory, with its signed chain entry. */
export interface EventBody {
  /** `<webhook_id>:<seq>`: the same on every retry of the delivery, so a receiver can drop repeats. */
  readonly id: string
  readonly type: WebhookEvent
  readonly account_id: string
  /** When the chain recorded it. */
  readonly created_at: string
  readonly data: {
    readonly umo_id: string
    /** The signed chain entry (verify it offline against `/.well-known/jwks.json`). */
    readonly entry: LedgerEntry
    /** `memory.updated`: the memories this new version replaced. */
    readonly supersedes?: ReadonlyArray<string>
    /** `memory.superseded`: the memory that replaced it. */
    readonly superseded_by?: string
    /** `memory.deleted` and `memory.expired`: the signed deletion or erasure receipt. */
    readonly receipt?: string
  }
}

/** The event a chain entry is for a webhook (none for a repeat or a re-embedding: nothing a reader sees changed). */
export const eventOf = (due: DueWebhook, entry: LedgerEntry): EventBody | undefined => {
  const base = {
    id: `${due.webhook.webhook_id}:${entry.seq}`,
    account_id: entry.account_id,
    created_at: entry.recorded_at
  }
  switch (entry.kind) {
    case "capture": {
      const supersedes = due.superseded.get(entry.umo_id) ?? []
      return supersedes.length > 0
        ? { ...base, type: "memory.updated", data: { umo_id: entry.umo_id, entry, supersedes } }
        : { ...base, type: "memory.added", data: { umo_id: entry.umo_id, entry } }
    }
    case "supersede":
      return {
        ...base,
        type: "memory.superseded",
        data: {
          umo_id: entry.umo_id,
          entry,
          ...(entry.superseded_by === undefined ? {} : { superseded_by: entry.superseded_by })
        }
      }
    case "delete": {
      const expired = due.expired.get(entry.seq)
      const receipt = expired ?? due.receipts.get(entry.seq)
      return {
        ...base,
        type: expired === undefined ? "memory.deleted" : "memory.expired",
        data: { umo_id: entry.umo_id, entry, ...(receipt === undefined ? {} : { receipt }) }
      }
    }
    default:
      return undefined
  }
}

/**
 * The signature header of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with
 * the webhook's secret. A receiver recomputes it over the raw body and refuses an old `t`.
 */
export const signature = (secret: string, body: string, unixSeconds: number) =>
  `t=${unixSeconds},v1=${createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex")}`

/** Posts one event; fails with why when the receiver does not answer 2xx in time. */
const post = (url: string, secret: string, event: EventBody) =>
  Effect.tryPromise({
    try: async (signal) => {
      const body = JSON.stringify(event)
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "UMO-Webhooks/1",
          "umo-webhook-id": event.id,
          "umo-event": event.type,
          "umo-signature": signature(secret, body, Math.floor(Date.now() / 1000))
        },
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(deliveryTimeoutMs)])
      })
      await response.body?.cancel()
      if (!response.ok) throw new Error(`the receiver answered ${response.status}`)
    },
    catch: (error) => (error instanceof Error ? error.message : String(error))
  })

/**
 * Delivers each due webhook's events in chain order, at least once: the cursor moves past an
 * entry once its event was answered 2xx (or the webhook does not hear that event); a failure
 * stops that webhook's deliveries until its retry time (5 s, doubling to an hour), so a receiver
 * never gets an event before the ones before it.
 */
export const make = Effect.gen(function* () {
  const store = yield* WebhookStore
  const retrySeconds = yield* retrySecondsConfig

  const deliver = (due: DueWebhook) =>
    Effect.gen(function* () {
      for (const entry of due.entries) {
        const event = eventOf(due, entry)
        if (event !== undefined && due.webhook.events.includes(event.type)) {
          const sent = yield* Effect.result(post(due.webhook.url, due.secret, event))
          if (sent._tag === "Failure") {
            const wait = Math.min(3600, retrySeconds * 2 ** due.webhook.attempts)
            return yield* store.failed(due.webhook.account_id, due.webhook.webhook_id, sent.failure, wait)
          }
        }
        yield* store.delivered(due.webhook.account_id, due.webhook.webhook_id, entry.seq)
      }
      yield* store.release(due.webhook.account_id, due.webhook.webhook_id)
    })

  /** One round: every webhook due, each in turn (its events in order), up to 20 at once. */
  const round = Effect.flatMap(store.due({ limit: 20, entries: 50, leaseSeconds: 120 }), (due) =>
    Effect.forEach(due, deliver, { concurrency: 4, discard: true })
  )

  const run = (pollMs: number) =>
    pollMs <= 0
      ? Effect.void
      : Effect.forkScoped(
          round.pipe(
            Effect.catchCause((cause) =>
              Effect.logWarning("webhook deliveries failed; the next round retries", cause)
            ),
            Effect.repeat(Schedule.spaced(Duration.millis(pollMs)))
          )
        ).pipe(Effect.asVoid)

  return { round, run }
})
