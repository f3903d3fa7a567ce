/**
 * A request to the Mem0 face as its calls see it, read by the route (`Mem0Routes`), and what a
 * call is: a function of it to one or more calls of the Memory service, answering a JSON body.
 * @module
 */

import type { Account } from "@umo/core"
import type { Memory, MemoryAccount, MemoryError } from "@umo/memory"
import type { Effect } from "effect"
import type { Mem0Refused } from "./Mem0Fields.js"

export interface Mem0Request {
  /** The JSON body (`{}` when there is none). */
  readonly body: Readonly<Record<string, unknown>>
  readonly query: URLSearchParams
  /** The path's parameters, decoded, in order (a memory id; an entity's type and name). */
  readonly params: ReadonlyArray<string>
  /** The account the key belongs to. */
  readonly account: Account
  /** The absolute URL of this path (no query), for a page's `next` and `previous`. */
  readonly url: string
}

/** A call of the Mem0 face: its answer's JSON body, or a refusal, or the service's error. */
export type Mem0Call = (
  request: Mem0Request
) => Effect.Effect<unknown, Mem0Refused | MemoryError, Memory | MemoryAccount>
