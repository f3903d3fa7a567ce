import { AccountStore, Ledger } from "@umo/core"
import { Effect, type Layer } from "effect"

/**
 * Audits the named accounts' chains from outside the server, entry by entry, through `storage`
 * (a StorageStack on the server's database, with its signing key and embedder): what a replica,
 * fault or scale-out run checks once its servers have done their work.
 */
export const auditChains = (
  accounts: ReadonlyArray<string>,
  storage: Layer.Layer<AccountStore | Ledger, unknown>
): Promise<ReadonlyArray<{ readonly entries: number; readonly valid: boolean }>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const store = yield* AccountStore
      const ledger = yield* Ledger
      return yield* Effect.forEach(accounts, (name) =>
        Effect.flatMap(store.ensureAccount(name), (account) => ledger.audit(account.account_id))
      )
    }).pipe(Effect.provide(storage))
  )
