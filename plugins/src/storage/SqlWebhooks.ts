import { randomUUID } from "node:crypto"
import {
  type DueWebhook,
  makeWebhookStore,
  type Webhook,
  type WebhookEvent,
  WebhookStore,
  type WebhookStoreShape
} from "@umo/core"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { isoUtc, returning, storeError } from "./SqlFailure.js"
import { entryColumns, toEntry } from "./SqlLedger.js"

interface Row {
  readonly webhook_id: string
  readonly account_id: string
  readonly url: string
  readonly name: string | null
  readonly events: string
  readonly created_at: string
  readonly delivered_seq: number
  readonly attempts: number
  readonly last_error: string | null
}

const columns = `webhook_id::text AS webhook_id, account_id::text AS account_id, url, name, events::text AS events,
  ${isoUtc("created_at")} AS created_at, delivered_seq, attempts, last_error`

const toWebhook = (row: Row): Webhook => ({
  ...row,
  events: JSON.parse(row.events) as ReadonlyArray<WebhookEvent>,
  delivered_seq: Number(row.delivered_seq),
  attempts: Number(row.attempts)
})

/** The claims of a compact JWS (the erasure receipt), unverified: only its `reason` is read here. */
const claimsOf = (jws: string): { readonly reason?: string } => {
  try {
    return JSON.parse(Buffer.from(jws.split(".")[1] ?? "", "base64url").toString("utf8"))
  } catch {
    return {}
  }
}

export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const create: WebhookStoreShape["create"] = (accountId, webhook) =>
    Effect.gen(function* () {
      // A new webhook hears what happens from now on: its cursor starts at the chain's head.
      const [head] = yield* sql<{ seq: number }>`SELECT seq FROM ledger_heads WHERE account_id = ${accountId}`
      const [row] = yield* returning<Row>(
        sql,
        sql`INSERT INTO webhooks (webhook_id, account_id, url, name, events, secret, delivered_seq)
          VALUES (${randomUUID()}, ${accountId}, ${webhook.url}, ${webhook.name}, ${JSON.stringify(webhook.events)}::jsonb,
            ${webhook.secret}, ${Number(head?.seq ?? 0)})`,
        columns
      )
      return toWebhook(row!)
    }).pipe(Effect.mapError(storeError("could not create the webhook")))

  const list: WebhookStoreShape["list"] = (accountId) =>
    sql<Row>`SELECT ${sql.unsafe(columns)} FROM webhooks WHERE account_id = ${accountId} ORDER BY created_at`.pipe(
      Effect.map((rows) => rows.map(toWebhook)),
      Effect.mapError(storeError("could not list the webhooks"))
    )

  const remove: WebhookStoreShape["remove"] = (accountId, webhookId) =>
    returning<Row>(
      sql,
      sql`DELETE FROM webhooks WHERE account_id = ${accountId} AND webhook_id = ${webhookId}`,
      columns
    ).pipe(
      Effect.map((rows) => Option.map(Option.fromNullishOr(rows[0]), toWebhook)),
      Effect.mapError(storeError("could not delete the webhook"))
    )

  const due: WebhookStoreShape["due"] = ({ limit, entries, leaseSeconds }) =>
    Effect.gen(function* () {
      // Which are due (a join on the account, co-located under Citus), then leased one statement on:
      // the UPDATE checks the lease again, so two processes never take the same webhook.
      const candidates = yield* sql<{ webhook_id: string }>`
        SELECT h.webhook_id::text AS webhook_id FROM webhooks h
        JOIN ledger_heads l ON l.account_id = h.account_id
        WHERE l.seq > h.delivered_seq AND h.retry_at <= now() AND (h.leased_until IS NULL OR h.leased_until < now())
        ORDER BY h.retry_at LIMIT ${limit}`
      if (candidates.length === 0) return []
      const leased = yield* returning<Row & { readonly secret: string }>(
        sql,
        sql`UPDATE webhooks SET leased_until = now() + ${`${leaseSeconds} seconds`}::interval
          WHERE ${sql.in(
            "webhook_id",
            candidates.map((c) => c.webhook_id)
          )}
            AND retry_at <= now() AND (leased_until IS NULL OR leased_until < now())`,
        `${columns}, secret`
      )
      return yield* Effect.forEach(leased, (row) =>
        Effect.gen(function* () {
          const found = (yield* sql`
            SELECT ${entryColumns(sql)} FROM ledger_entries
            WHERE account_id = ${row.account_id} AND seq > ${row.delivered_seq} ORDER BY seq LIMIT ${entries}`).map(
            (r) => toEntry(r as never)
          )
          const captured = found.filter((e) => e.kind === "capture").map((e) => e.umo_id)
          const superseded = new Map<string, Array<string>>()
          if (captured.length > 0)
            for (const r of yield* sql<{ umo_id: string; superseded_by: string }>`
              SELECT umo_id::text AS umo_id, superseded_by::text AS superseded_by FROM memories
              WHERE account_id = ${row.account_id} AND ${sql.in("superseded_by", captured)}`)
              superseded.set(r.superseded_by, [...(superseded.get(r.superseded_by) ?? []), r.umo_id])
          const deletions = found.filter((e) => e.kind === "delete").map((e) => e.seq)
          const expired = new Map<number, string>()
          const receipts = new Map<number, string>()
          if (deletions.length > 0) {
            const first = Math.min(...deletions)
            const last = Math.max(...deletions)
            for (const r of yield* sql<{ first_seq: number; last_seq: number; receipt: string }>`
              SELECT first_seq, last_seq, receipt FROM erasure_receipts WHERE account_id = ${row.account_id}
                AND first_seq <= ${last} AND last_seq >= ${first}
              UNION ALL
              SELECT seq AS first_seq, seq AS last_seq, receipt FROM deletion_receipts
              WHERE account_id = ${row.account_id} AND seq BETWEEN ${first} AND ${last}`) {
              const byExpiry = claimsOf(r.receipt).reason === "expired"
              for (const seq of deletions)
                if (seq >= Number(r.first_seq) && seq <= Number(r.last_seq))
                  (byExpiry ? expired : receipts).set(seq, r.receipt)
            }
          }
          const { secret, ...webhook } = row
          return {
            webhook: toWebhook(webhook),
            secret,
            entries: found,
            superseded,
            expired,
            receipts
          } satisfies DueWebhook
        })
      )
    }).pipe(Effect.mapError(storeError("could not read the webhooks due")))

  const delivered: WebhookStoreShape["delivered"] = (accountId, webhookId, seq) =>
    sql`UPDATE webhooks SET delivered_seq = greatest(delivered_seq, ${seq}), attempts = 0, last_error = NULL,
        retry_at = now() WHERE account_id = ${accountId} AND webhook_id = ${webhookId}`.pipe(
      Effect.asVoid,
      Effect.mapError(storeError("could not record the delivery"))
    )

  const release: WebhookStoreShape["release"] = (accountId, webhookId) =>
    sql`UPDATE webhooks SET leased_until = NULL WHERE account_id = ${accountId} AND webhook_id = ${webhookId}`.pipe(
      Effect.asVoid,
      Effect.mapError(storeError("could not release the webhook"))
    )

  const failed: WebhookStoreShape["failed"] = (accountId, webhookId, error, retryInSeconds) =>
    sql`UPDATE webhooks SET attempts = attempts + 1, last_error = ${error}, leased_until = NULL,
        retry_at = now() + ${`${retryInSeconds} seconds`}::interval WHERE account_id = ${accountId} AND webhook_id = ${webhookId}`.pipe(
      Effect.asVoid,
      Effect.mapError(storeError("could not record the failed delivery"))
    )

  return makeWebhookStore({ create, list, remove, due, delivered, release, failed })
})

/** The WebhookStore port on an Effect SqlClient. */
export const layer = Layer.effect(WebhookStore, make)
