import { Context, type Effect, type Option } from "effect"
import type { StoreError } from "./MemoryStore.js"

export interface Account {
  /** The account's UUID, the spec's `user_id`; every stored row is keyed by it. */
  readonly account_id: string
  readonly name: string
  readonly workspace_id: string | null
  readonly tier: string
}

export interface ApiKeyRecord {
  readonly account_id: string
  /** Public prefix of the key, safe to show and log. */
  readonly key_id: string
  readonly status: "active" | "revoked"
  readonly created_at: string
}

/** Accounts and their API keys. Keys are stored only as SHA-256 hashes. */
export interface AccountStoreShape {
  /** The account with this name, created (with a new UUID) if it does not exist. */
  readonly ensureAccount: (name: string) => Effect.Effect<Account, StoreError>
  readonly addKey: (
    accountId: string,
    keyId: string,
    keyHash: string
  ) => Effect.Effect<ApiKeyRecord, StoreError>
  /** The account of an active key, looked up by the key's SHA-256 hash. */
  readonly findByKeyHash: (
    keyHash: string
  ) => Effect.Effect<Option.Option<{ readonly account: Account; readonly key: ApiKeyRecord }>, StoreError>
  readonly listKeys: () => Effect.Effect<
    ReadonlyArray<ApiKeyRecord & { readonly account_name: string }>,
    StoreError
  >
  /** `false` when no active key has that id. */
  readonly revokeKey: (keyId: string) => Effect.Effect<boolean, StoreError>
}

export class AccountStore extends Context.Service<AccountStore, AccountStoreShape>()(
  "@umo/core/AccountStore"
) {}
