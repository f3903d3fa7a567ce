/**
 * The operator's command line (`npx umo`, or `npm run umo --` in a clone): `serve` (the server, as
 * `npm start` runs it), `keys create --account NAME`, `keys list`, `keys revoke KEY_ID`,
 * `signing-key list`, `signing-key rotate`, `mcp` (an MCP server over stdio for desktop hosts), and
 * `export` / `import` (an account's memories out to JSON Lines and in from an export of UMO or
 * Mem0; see `cli/Transfers.ts`). It opens the same database as the server (DATABASE_URL, else
 * PGlite in UMO_DATA_DIR); a PGlite directory must not be open in a running server at the same
 * time. `bin/umo.js` runs it, on a newer Node when the one on PATH is too old.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { AccountStore } from "@umo/core"
import { serveStdio } from "@umo/mcp"
import { Database, SigningKey, SqlAccountStore, SqlKeyRing } from "@umo/plugins"
import { Config, Console, Effect, Layer, Logger, Option, Redacted } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { dataDirFlag, exportCommand, importCommand, memoryOptions } from "./cli/Transfers.js"
import { generateKey } from "./keys/ApiKeys.js"

const userError = (userMessage: string) =>
  new CliError.UserError({ cause: new Error(userMessage), userMessage })

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
    if (!revoked) return yield* userError(`no active key with id ${keyId}`)
    yield* Console.log(`Revoked ${keyId}.`)
  })
).pipe(Command.withDescription("revoke an API key by its id"))

const keys = Command.make("keys").pipe(
  Command.withDescription("manage API keys"),
  Command.withSubcommands([create, list, revoke])
)

const listSigningKeys = Command.make("list", {}, () =>
  Effect.gen(function* () {
    const ring = yield* SqlKeyRing.list
    if (ring.length === 0)
      return yield* Console.log("No signing key yet: the server registers its key on its first start.")
    yield* Console.log(
      [
        "SEQ  KEY_ID                                        STATUS   SINCE",
        ...ring.map((k, i) => {
          const status = k.record === undefined ? "INVALID" : i === ring.length - 1 ? "current" : "retired"
          return `${String(k.seq).padEnd(4)} ${k.key_id.padEnd(45)} ${status.padEnd(8)} ${k.record?.created_at ?? "?"}`
        })
      ].join("\n")
    )
  })
).pipe(Command.withDescription("list the keys that have signed this database's chains, oldest first"))

const rotateSigningKey = Command.make(
  "rotate",
  {
    newKey: Flag.String("new-key").pipe(
      Flag.optional,
      Flag.withDescription(
        "a file holding the new key (PEM or private JWK); a new key is generated when omitted"
      )
    ),
    out: Flag.String("out").pipe(
      Flag.optional,
      Flag.withDescription("where to write a generated key when UMO_SIGNING_KEY holds the current one")
    )
  },
  ({ newKey, out }) =>
    Effect.gen(function* () {
      const dataDir = yield* Config.String("UMO_DATA_DIR").pipe(Config.withDefault("./data"))
      const configured = Option.map(yield* Config.option(Config.Redacted("UMO_SIGNING_KEY")), Redacted.value)
      if (Option.isNone(configured) && !existsSync(SigningKey.keyFile(dataDir)))
        return yield* userError(
          `no signing key in ${SigningKey.keyFile(dataDir)} and UMO_SIGNING_KEY is not set`
        )
      if (Option.isSome(configured) && Option.isNone(newKey) && Option.isNone(out))
        return yield* userError(
          "UMO_SIGNING_KEY holds the current key: give --out FILE to receive the new one, or --new-key FILE"
        )
      const current = yield* SigningKey.load({ dataDir, pem: Option.getOrUndefined(configured) })
      const nextPem = Option.match(newKey, {
        onNone: SigningKey.generatePem,
        onSome: (file) => readFileSync(file, "utf8")
      })
      const next = yield* SigningKey.fromText(
        nextPem,
        Option.getOrElse(newKey, () => "the new key")
      )
      // The new key is safe on disk before the database hands over to it.
      if (Option.isSome(out)) writeFileSync(out.value, nextPem, { mode: 0o600, flag: "wx" })
      const record = yield* SqlKeyRing.rotate(current, next)
      yield* Console.log(
        `Rotated the signing key: ${current.keyId} (retired) → ${next.keyId} (key ${record.seq}).`
      )
      if (Option.isNone(configured)) {
        const file = yield* SigningKey.replaceKeyFile(dataDir, nextPem)
        yield* Console.log(
          `The new key replaced the retired one in ${file}. Remove copies of the retired private key ` +
            "(backups of the data directory too): nothing needs it any more."
        )
      } else {
        yield* Console.log(
          `Set UMO_SIGNING_KEY to the new key (${Option.getOrElse(out, () => Option.getOrThrow(newKey))}) on every ` +
            "process serving this database and restart them; until then they answer captures and deletions with 503."
        )
      }
      yield* Console.log(
        "Entries signed before stay valid: /.well-known/jwks.json lists the retired keys beside the current one, " +
          "with the records that link them."
      )
    })
).pipe(Command.withDescription("hand the signing over to a new key, endorsed by the current one"))

const signingKey = Command.make("signing-key").pipe(
  Command.withDescription("manage the key that signs the hash chains"),
  Command.withSubcommands([listSigningKeys, rotateSigningKey])
)

const mcp = Command.make(
  "mcp",
  {
    dataDir: dataDirFlag,
    account: Flag.String("account").pipe(
      Flag.withDefault("default"),
      Flag.withDescription("the account whose memories the host sees; made on first use")
    )
  },
  ({ dataDir, account }) =>
    Effect.flatMap(memoryOptions(dataDir), (options) =>
      Effect.promise(() => serveStdio({ ...options, account }))
    )
).pipe(
  Command.withDescription(
    "serve an account's memories to an MCP host over stdio, in this process (no server, no key)"
  )
)

const serve = Command.make("serve", {}, () =>
  // Loaded here, not at the top: the other commands need none of the HTTP server.
  Effect.flatMap(
    Effect.promise(() => import("./Server.js")),
    ({ ServerLive }) => Layer.launch(ServerLive.pipe(Layer.provide(Logger.layer([Logger.consoleJson]))))
  )
).pipe(
  Command.withDescription(
    "serve the API, the console and /mcp on HOST:PORT (default 127.0.0.1:8787), as `npm start` does"
  )
)

// The operator's commands open the database; `mcp`, `export` and `import` open the whole service.
const Accounts = SqlAccountStore.layer.pipe(Layer.provideMerge(Database.layerConfig))

const umo = Command.make("umo").pipe(
  Command.withSubcommands([
    keys.pipe(Command.provide(Accounts)),
    signingKey.pipe(Command.provide(Accounts)),
    serve,
    mcp,
    exportCommand,
    importCommand
  ])
)

Command.run(umo, { version: "0.1.0" }).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
