import { StoreError } from "@umo/core"

/**
 * Whether a failure means the database could not be reached (worth a 503 and a retry) rather than
 * a failed statement: a SqlError whose reason is a ConnectionError, or a port error that already
 * says "Unavailable".
 */
export const isUnavailable = (cause: unknown): boolean => {
  const reason = (cause as { readonly reason?: unknown } | undefined)?.reason
  return (
    reason === "Unavailable" || (reason as { readonly _tag?: string } | undefined)?._tag === "ConnectionError"
  )
}

/** Wraps a database failure as the MemoryStore/AccountStore port's error, saying what failed. */
export const storeError =
  (detail: string) =>
  (cause: { readonly message: string }): StoreError =>
    cause instanceof StoreError
      ? cause
      : new StoreError({
          reason: isUnavailable(cause) ? "Unavailable" : "Failed",
          detail: `${detail}: ${cause.message}`,
          cause
        })
