import {
  type CaptureReceipt,
  type CaptureWrite,
  canonicalJson,
  MemorySearch,
  MemoryStore,
  sha256Hex
} from "@umo/core"
import { Reembedder } from "@umo/plugins"
import { Effect, Option } from "effect"
import { InvalidRequest, type MemoryNotFound, storeFailure, Unavailable } from "../Errors.js"

/** What identifies a request for its idempotency key: the operation and what it was given. */
export const fingerprint = (operation: string, input: unknown) =>
  sha256Hex(canonicalJson({ operation, input }))

/** Stores captured memories, with the answer `respond` makes of their receipts when a key is given. */
export type Save<A> = (
  writes: ReadonlyArray<CaptureWrite>,
  respond: (receipts: ReadonlyArray<CaptureReceipt>) => A
) => Effect.Effect<A, Unavailable | InvalidRequest>

/**
 * Captures once per idempotency key. The first answer under a key is stored with what it captured,
 * in one transaction, and a repeat of the same request is answered with it again — nothing is
 * captured twice; the same key with another request is refused (InvalidRequest).
 */
export const make = Effect.gen(function* () {
  const store = yield* MemoryStore
  const search = yield* MemorySearch
  // A process that did not re-embed the store itself learns of the switch here first, and follows
  // it before it captures again (without a Reembedder, from a storage of its own, it cannot).
  const followPin = Option.match(yield* Effect.serviceOption(Reembedder), {
    onNone: () => Effect.void,
    onSome: (reembedder) => Effect.ignore(reembedder.follow)
  })

  /** The answer stored under `key` for this request, failing when the key served another one. */
  const answered = <A>(accountId: string, key: string, print: string) =>
    store.idempotentAnswer(accountId, key).pipe(
      Effect.catch(storeFailure),
      Effect.flatMap(
        Option.match({
          onNone: () => Effect.succeed(Option.none<A>()),
          onSome: (earlier) =>
            earlier.fingerprint === print
              ? Effect.succeed(Option.some(earlier.response as A))
              : Effect.fail(
                  new InvalidRequest({
                    detail:
                      "this Idempotency-Key was used with another request: use a new key for a new request"
                  })
                )
        })
      )
    )

  /**
   * Runs `capture` once per key: answers what the key stored earlier, or captures, storing the
   * answer under the key with the memories (`save`). Without a key it simply captures.
   */
  const once = <A, E>(
    accountId: string,
    key: string | undefined,
    print: () => string,
    capture: (save: Save<A>) => Effect.Effect<A, E | Unavailable | InvalidRequest | MemoryNotFound>
  ): Effect.Effect<A, E | Unavailable | InvalidRequest | MemoryNotFound> =>
    Effect.gen(function* () {
      const request = key === undefined ? "" : print()
      if (key !== undefined) {
        const earlier = yield* answered<A>(accountId, key, request)
        if (Option.isSome(earlier)) return earlier.value
      }
      // A re-embedding's switch landing between the embedding and the store's transaction: the
      // capture runs again, embedded by the model the store moved to (twice at most), which this
      // process follows first if another one switched the store.
      const attempt = (left: number): Effect.Effect<A, E | Unavailable | InvalidRequest | MemoryNotFound> => {
        const switched = new Unavailable({
          detail: "the store moved to another embedding model while this was captured; retry"
        })
        const stored = capture((writes, respond) =>
          store
            .insertMany(
              accountId,
              writes,
              key === undefined ? undefined : { key, fingerprint: request, response: respond }
            )
            .pipe(
              // The search applies them as they commit: a burst leaves the next search no backlog.
              Effect.tap(() => search.follow(accountId)),
              Effect.map(respond),
              Effect.catch((error) =>
                // Another request with this key stored its answer first (a retry racing the original).
                error.reason === "IdempotencyKeyUsed" && key !== undefined
                  ? Effect.flatMap(answered<A>(accountId, key, request), (earlier) =>
                      Option.isSome(earlier) ? Effect.succeed(earlier.value) : storeFailure(error)
                    )
                  : error.reason === "EmbedderSwitched" && left > 0
                    ? Effect.fail(switched)
                    : storeFailure(error)
              )
            )
        )
        return Effect.catchIf(
          stored,
          (error) => error === switched,
          () => Effect.andThen(followPin, attempt(left - 1))
        )
      }
      return yield* attempt(2)
    })

  return { once }
})
