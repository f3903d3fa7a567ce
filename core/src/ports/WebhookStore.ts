import { Context, type Effect, type Option } from "effect"
import type { LedgerEntry } from "./Ledger.js"
import type { StoreError } from "./MemoryStore.js"
import { traced } from "./Traced.js"

/** What a webhook hears: a memory added, updated (a new version), superseded, deleted or expired. */
export const webhookEvents = [
  "memory.added",
  "memory.updated",
  "memory.superseded",
  "memory.deleted",
  "memory.expired"
] as const
export type WebhookEvent = (typeof webhookEvents)[number]

/** A webhook of an account: where it posts, what it hears, and how far through the chain it is. */
export interface Webhook {
  readonly webhook_id: string
  readonly account_id: string
  readonly url: string
  /** The caller's name for it (null: none). */
  readonly name: string | null
  readonly events: ReadonlyArray<WebhookEvent>
  readonly created_at: string
  /** The last chain entry delivered (or skipped, not being an event it hears). */
  readonly delivered_seq: number
  /** Deliveries of the entry after it that failed, and the last one's error (null: none failed). */
  readonly attempts: number
  readonly last_error: string | null
}

/** A webhook due for delivery: its secret, and the chain entries after its cursor (oldest first). */
export interface DueWebhook {
  readonly webhook: Webhook
  readonly secret: string
  readonly entries: ReadonlyArray<LedgerEntry>
  /** The memories superseded by each captured memory among the entries (a capture that is a new version). */
  readonly superseded: ReadonlyMap<string, ReadonlyArray<string>>
  /** The seqs of deletion entries the expiry sweeper made (their erasure receipt says `expired`), with the receipt. */
  readonly expired: ReadonlyMap<number, string>
  /** The seqs of other erasures' deletion entries, with their signed receipt. */
  readonly receipts: ReadonlyMap<number, string>
}

/**
 * Where webhooks are kept, and the cursor of each through its account's hash chain: deliveries
 * follow the chain (every write of the account is an entry of it), so no write path has to
 * remember to announce itself, and a delivery lost to a crash is made again (at least once).
 */
export interface WebhookStoreShape {
  readonly create: (
    accountId: string,
    webhook: {
      readonly url: string
      readonly name: string | null
      readonly events: ReadonlyArray<WebhookEvent>
      readonly secret: string
    }
  ) => Effect.Effect<Webhook, StoreError>
  readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<Webhook>, StoreError>
  readonly remove: (accountId: string, webhookId: string) => Effect.Effect<Option.Option<Webhook>, StoreError>
  /**
   * Leases up to `limit` webhooks whose retry time has come and whose chain has entries past their
   * cursor, for `leaseSeconds` (another process skips them meanwhile), each with up to `entries`.
   */
  readonly due: (options: {
    readonly limit: number
    readonly entries: number
    readonly leaseSeconds: number
  }) => Effect.Effect<ReadonlyArray<DueWebhook>, StoreError>
  /**
   * Moves the cursor past `seq` (delivered, or not an event it hears) and clears its failures. The
   * webhook is named with its account, as every write of a store is: the account keys its rows.
   */
  readonly delivered: (accountId: string, webhookId: string, seq: number) => Effect.Effect<void, StoreError>
  /** Ends the lease of a webhook whose due entries were all delivered. */
  readonly release: (accountId: string, webhookId: string) => Effect.Effect<void, StoreError>
  /** Records a failed delivery and when to try again; the lease ends. */
  readonly failed: (
    accountId: string,
    webhookId: string,
    error: string,
    retryInSeconds: number
  ) => Effect.Effect<void, StoreError>
}

export class WebhookStore extends Context.Service<WebhookStore, WebhookStoreShape>()(
  "@umo/core/WebhookStore"
) {}

/** The port from an implementation, each method traced (`WebhookStore.due`, …). */
export const makeWebhookStore = (impl: WebhookStoreShape): WebhookStoreShape => traced("WebhookStore", impl)
