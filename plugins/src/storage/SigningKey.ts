import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { publicSigningJwk } from "@umo/core"
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { CompactSign, type JWK } from "jose"

export class SigningKeyError extends Schema.Error<SigningKeyError>("SigningKeyError")({
  detail: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message(): string {
    return this.detail
  }
}

export interface SigningKeyShape {
  /** RFC 7638 thumbprint of the public key: names the key in entries, checkpoints and receipts. */
  readonly keyId: string
  readonly publicJwk: JWK
  /** Ed25519 signature (base64url) over a UTF-8 message. */
  readonly sign: (message: string) => string
  /** A compact JWS (EdDSA) over the canonical claims. */
  readonly signJws: (claims: unknown) => Effect.Effect<string>
  /** Where the key came from (`UMO_SIGNING_KEY`, or its file), for messages that name it. */
  readonly source: string
}

/** The service's Ed25519 key, which signs ledger entries, checkpoints and receipts. */
export class SigningKey extends Context.Service<SigningKey, SigningKeyShape>()("@umo/plugins/SigningKey") {}

export const make = (privateKey: KeyObject, source = "a private key") =>
  Effect.gen(function* () {
    if (privateKey.asymmetricKeyType !== "ed25519") {
      return yield* new SigningKeyError({
        detail: `the signing key must be Ed25519, not ${privateKey.asymmetricKeyType}`
      })
    }
    const jwk = publicSigningJwk(createPublicKey(privateKey).export({ format: "jwk" }) as JWK)
    const keyId = jwk.kid!
    return {
      keyId,
      publicJwk: jwk,
      source,
      sign: (message: string) => sign(null, Buffer.from(message, "utf8"), privateKey).toString("base64url"),
      signJws: (claims: unknown) =>
        Effect.promise(() =>
          new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
            .setProtectedHeader({ alg: "EdDSA", kid: keyId, typ: "umo-receipt+jws" })
            .sign(privateKey)
        )
    } satisfies SigningKeyShape
  })

const parseKey = (text: string, source: string) =>
  Effect.try({
    try: () =>
      text.trim().startsWith("{")
        ? createPrivateKey({ key: JSON.parse(text), format: "jwk" })
        : createPrivateKey(text),
    catch: (cause) =>
      new SigningKeyError({ detail: `${source} is neither a PEM private key nor a private JWK`, cause })
  })

/** A key from its text (PEM or private JWK); `source` names where it came from in messages. */
export const fromText = (text: string, source: string) =>
  Effect.flatMap(parseKey(text, source), (key) => make(key, source))

/** A new Ed25519 private key, as PKCS#8 PEM. */
export const generatePem = (): string =>
  generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

/** Where the data directory keeps its key when `UMO_SIGNING_KEY` is not set. */
export const keyFile = (dataDir: string) => join(dataDir, "signing-key.pem")

/**
 * Makes `pem` the data directory's key after a rotation, replacing the retired one in one rename.
 * The retired private key is not kept: nothing needs it (its public key checks what it signed), and
 * a copy left on disk or in a backup could still endorse a key of its own.
 */
export const replaceKeyFile = (dataDir: string, pem: string) =>
  Effect.try({
    try: () => {
      const file = keyFile(dataDir)
      const next = `${file}.next`
      writeFileSync(next, pem, { mode: 0o600 })
      renameSync(next, file)
      return file
    },
    catch: (cause) => new SigningKeyError({ detail: `could not write the new key into ${dataDir}`, cause })
  })

/**
 * Loads the key from `pem` (a PEM or private JWK, e.g. from `UMO_SIGNING_KEY`) or from
 * `<dataDir>/signing-key.pem`, creating that file (mode 0600) on first start so the key survives
 * restarts.
 */
export const load = (options: { readonly dataDir: string; readonly pem?: string | undefined }) =>
  Effect.gen(function* () {
    if (options.pem) return yield* fromText(options.pem, "UMO_SIGNING_KEY")
    const file = keyFile(options.dataDir)
    const pem = yield* Effect.try({
      try: () => {
        if (!existsSync(file)) {
          mkdirSync(options.dataDir, { recursive: true })
          const text = generatePem()
          try {
            // "wx": when two processes start at once, the first key written wins and both read it.
            writeFileSync(file, text, { mode: 0o600, flag: "wx" })
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
          }
        }
        return readFileSync(file, "utf8")
      },
      catch: (cause) =>
        new SigningKeyError({ detail: `could not read or create the signing key ${file}`, cause })
    })
    return yield* fromText(pem, `the key file ${file}`)
  })

export const layer = (options: { readonly dataDir: string; readonly pem?: string | undefined }) =>
  Layer.effect(SigningKey, load(options))

/** Reads `UMO_SIGNING_KEY` (PEM or private JWK) or keeps the key in `UMO_DATA_DIR` (default `./data`). */
export const layerConfig = Layer.effect(
  SigningKey,
  Effect.gen(function* () {
    const dataDir = yield* Config.String("UMO_DATA_DIR").pipe(Config.withDefault("./data"))
    const pem = yield* Config.option(Config.Redacted("UMO_SIGNING_KEY"))
    return yield* load({ dataDir, pem: Option.getOrUndefined(Option.map(pem, Redacted.value)) })
  })
)
