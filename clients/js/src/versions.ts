/** Results of the calls on memories that change over time and belong to someone. */
import { list, num, optStr, type Raw, str, strings } from "./fields.js"
import { Memory } from "./models.js"

/** A memory's line of versions (`history`): every memory linked to it by supersession, oldest first. */
export class MemoryHistory {
  /** The memory asked about. */
  readonly umoId: string
  readonly versions: ReadonlyArray<Memory>
  constructor(readonly raw: Raw) {
    this.umoId = str(raw, "umo_id")
    this.versions = list(raw, "versions").map((version) => new Memory(version))
  }
  /** The version that is current now: the one nothing superseded (null when the newest was deleted). */
  get current(): Memory | null {
    return this.versions.findLast((version) => version.supersededBy === null) ?? null
  }
}

/** What `forgetAll` returns: how many memories were erased, which, and one signed receipt (see `verifyReceipt`). */
export class ErasureReceipt {
  readonly forgotten: number
  readonly umoIds: ReadonlyArray<string>
  /** When; null when nothing matched. */
  readonly deletedAt: string | null
  /** Compact JWS of the erasure; empty when nothing matched. */
  readonly receipt: string
  constructor(readonly raw: Raw) {
    this.forgotten = num(raw, "forgotten")
    this.umoIds = strings(raw, "umo_ids")
    this.deletedAt = optStr(raw, "deleted_at")
    this.receipt = str(raw, "receipt")
  }
}
