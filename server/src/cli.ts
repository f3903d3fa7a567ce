/**
 * The operator's command line: `npm run umo -- keys create --account NAME`, `keys list`,
 * `keys revoke KEY_ID`. It opens the same database as the server (DATABASE_URL, else PGlite in
 * UMO_DATA_DIR); a PGlite directory must not be open in a running server at the same time.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { AccountStore } from "@umo/core"
import { Database, SqlAccountStore } from "@umo/plugins"
import { Console, Effect, Layer } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { generateKey } from "./services/ApiKeys.js"

const create = Command.make(
  "create",
  { account: Flag.String("account").pipe(Flag.withDescription("account name; created when new")) },
  ({ account }) =>
    Effect.gen(function* () {
      const accounts = yield* AccountStore
      const { account_id } = yield* accounts.ensureAccount(account)
      const key = generateKey()
      yield* accounts.addKey(account_id, key.keyId, key.keyHash)
      yield* Console.log(`Created key ${key.keyId} for account "${account}" (user_id ${account_id}).`)
      yield* Console.log(`Keep it now; it is not stored and cannot be shown again:\n\n  ${key.key}\n`)
    })
).pipe(Command.withDescription("create an API key for an account"))

const list = Command.make("list", {}, () =>
  Effect.gen(function* () {
    const keys = yield* (yield* AccountStore).listKeys()
    if (keys.length === 0) return yield* Console.log("No keys yet: npm run umo -- keys create --account NAME")
    yield* Console.log(
      [
        "KEY_ID            STATUS   ACCOUNT              CREATED",
        ...keys.map(
          (k) => `${k.key_id.padEnd(17)} ${k.status.padEnd(8)} ${k.account_name.padEnd(20)} ${k.created_at}`
        )
      ].join("\n")
    )
  })
).pipe(Command.withDescription("list API keys (ids only; keys themselves are never stored)"))

const revoke = Command.make("revoke", { keyId: Argument.String("key-id") }, ({ keyId }) =>
  Effect.gen(function* () {
    const revoked = yield* (yield* AccountStore).revokeKey(keyId)
    if (!revoked) {
      const userMessage = `no active key with id ${keyId}`
      return yield* new CliError.UserError({ cause: new Error(userMessage), userMessage })
    }
    yield* Console.log(`Revoked ${keyId}.`)
  })
).pipe(Command.withDescription("revoke an API key by its id"))

const keys = Command.make("keys").pipe(
  Command.withDescription("manage API keys"),
  Command.withSubcommands([create, list, revoke])
)

const umo = Command.make("umo").pipe(Command.withSubcommands([keys]))

const Accounts = SqlAccountStore.layer.pipe(Layer.provide(Database.layerConfig))

Command.run(umo, { version: "0.1.0" }).pipe(
  Effect.provide(Layer.mergeAll(Accounts, NodeServices.layer)),
  NodeRuntime.runMain
)
