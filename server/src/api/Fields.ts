/**
 * The fields only HTTP has: a memory id in a path and the `Idempotency-Key` header. Every other
 * field is a request of `@umo/memory` (its `Requests`), the same schema in-process and over HTTP.
 * @module
 */
import { IdempotencyKey } from "@umo/memory"
import { Schema } from "effect"

/**
 * A memory's id in a path. Ids are UUIDs, and every other string is answered like an unknown id,
 * with a 404 (so nothing is refused here); the document bounds its length so that a client keeps
 * every request line within the server's 16 KB header limit.
 */
export const MemoryId = Schema.String.check(
  Schema.makeFilter(() => true, { toJsonSchema: () => ({ maxLength: 100 }) })
).annotate({ description: "a memory id (a UUID); an unknown, malformed or another account's id is a 404" })

/**
 * The `Idempotency-Key` header of a capture (IETF draft "The Idempotency-Key HTTP Header Field"):
 * 1 to 255 visible ASCII characters, bare or as a quoted string. A repeat of the same request with
 * the same key gets the first answer again and captures nothing; the same key with another request
 * is refused (422). Keys are kept for 24 hours, per account.
 */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(IdempotencyKey).annotate({
    description:
      "a key of your choosing (1 to 255 visible ASCII characters, e.g. a UUID): a retry with the same key and body " +
      "is answered as the first request was, and stores nothing again; kept for 24 hours"
  })
})

export type IdempotencyHeaders = typeof IdempotencyHeaders.Type

/** The key of a request's `Idempotency-Key` header, its quotes (a structured-field string) removed. */
export const idempotencyKeyOf = (headers: IdempotencyHeaders): string | undefined => {
  const key = headers["idempotency-key"]
  return key !== undefined && /^".+"$/.test(key) ? key.slice(1, -1) : key
}
