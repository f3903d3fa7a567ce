import { AccountStore } from "@umo/core"
import { Config, Console, Effect } from "effect"
import { configuredKey, generateKey } from "./ApiKeys.js"

/** Parses `UMO_API_KEYS="key1=account1,key2=account2"`. */
export const parseApiKeys = (
  text: string
): ReadonlyArray<{ readonly key: string; readonly account: string }> =>
  text
    .split(",")
    .map((pair) => pair.trim())
    .filter((pair) => pair.length > 0)
    .map((pair, i) => {
      const at = pair.lastIndexOf("=")
      // The entry itself is not shown: it may be a key whose "=account" was forgotten.
      if (at <= 0 || at === pair.length - 1)
        throw new Error(`UMO_API_KEYS: entry ${i + 1} is not key=account (not shown: it may hold a key)`)
      return { key: pair.slice(0, at), account: pair.slice(at + 1) }
    })

/**
 * At start: ensures the keys of `UMO_API_KEYS`; when the store then has no key at all, creates
 * one for the account "default" and prints it once (it is never shown again).
 */
export const ensureKeys = Effect.gen(function* () {
  const accounts = yield* AccountStore
  const configured = yield* Config.String("UMO_API_KEYS").pipe(Config.withDefault(""))
  const pairs = yield* Effect.try({ try: () => parseApiKeys(configured), catch: (e) => e as Error })
  for (const { key, account } of pairs) {
    const { account_id } = yield* accounts.ensureAccount(account)
    const { keyId, keyHash } = configuredKey(key)
    yield* accounts.addKey(account_id, keyId, keyHash)
  }
  if ((yield* accounts.listKeys()).length === 0) {
    const { account_id } = yield* accounts.ensureAccount("default")
    const created = generateKey()
    yield* accounts.addKey(account_id, created.keyId, created.keyHash)
    yield* Console.log(
      `No API key existed, so one was created for the account "default" (shown only now):\n\n  ${created.key}\n`
    )
  }
})
