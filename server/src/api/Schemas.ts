/**
 * The wire shapes only HTTP adds to `@umo/memory`'s results: the spec's envelope, and the
 * account's status with the calling key.
 * @module
 */
import { Results } from "@umo/memory"
import { Schema } from "effect"

/** The spec's envelope around most responses; `data` is the endpoint's payload. */
export const Envelope = <S extends Schema.Top>(data: S) =>
  Schema.Struct({
    status: Schema.Literal("success"),
    data,
    request_id: Schema.String,
    timestamp: Schema.String
  })

/** `GET /v1/account`: the account and its plan, and the key the call was made with. */
export const AccountStatus = Schema.Struct({
  ...Results.AccountInfo.fields,
  key: Schema.Struct({ key_id: Schema.String, tier: Schema.String, status: Schema.String })
})
