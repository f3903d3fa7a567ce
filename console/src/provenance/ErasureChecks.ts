/**
 * The browser's check of an erasure receipt (`DELETE /v1/memories?user_id=…`): the client's
 * `verifyReceipt` under the keys pinned at sign-in (its signature, and the signed chain entry it
 * carries), then that the receipt names the very memories the response says were erased.
 * @module
 */
import { type ErasureReceipt, type SigningKeySet, verifyReceipt } from "@umo/client"
import { describeError } from "../api/Session.js"

const sameIds = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && [...a].sort().every((id, i) => id === [...b].sort()[i])

/** null when the receipt checks out (or nothing was erased, so none was issued); else why not. */
export const checkErasure = async (erased: ErasureReceipt, pinned: SigningKeySet): Promise<string | null> => {
  if (erased.forgotten === 0 && erased.receipt === "") return null
  try {
    const claims = await verifyReceipt(erased.receipt, pinned)
    if (claims.type !== "umo-erasure-receipt") return `it is a ${claims.type}, not an erasure receipt`
    if (claims.count !== erased.forgotten || !sameIds(claims.umo_ids ?? [], erased.umoIds))
      return "it names other memories than the server says it erased"
    return null
  } catch (failure) {
    return describeError(failure)
  }
}
