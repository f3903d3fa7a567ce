import { canonicalJson, isUmoId, Ledger, MemoryStore, type StoredMemory } from "@umo/core"
import { Effect, Option } from "effect"
import { decodeRequest, InvalidRequest, memoryNotFound, storeFailure } from "../Errors.js"
import type { CaptureOptions } from "../Memory.js"
import { type CaptureRequest, UpdateManyRequest, UpdateRequest } from "../Requests.js"
import type { Captured } from "../Results.js"
import { expiryOf, immutable, type make as makeCapture, refusedIfFailed } from "./Capture.js"

const decodeUpdate = decodeRequest(UpdateRequest, "request body")
const decodeUpdateMany = decodeRequest(UpdateManyRequest, "request body")

type Captures = Effect.Success<ReturnType<typeof makeCapture>>

/** A change as it reaches `versionOf`: the update's fields, checked. */
type Change = typeof UpdateRequest.Type

/**
 * Changes to memories already captured: each a new version that supersedes the memory, in its
 * scope (the history and the chain keep both, nothing is edited in place), or — the expiry alone —
 * the expiry moved in place; and many such versions stored together or not at all.
 */
export const make = (captures: Captures) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const ledger = yield* Ledger

    /**
     * What a change of the memory `id` asks for: the capture of its new version (its source stays;
     * its time stays when only the metadata changes, the same thing said, and is now, or as given,
     * for new text), or its expiry moved in place (`move`).
     */
    const versionOf = (accountId: string, id: string, change: Change) =>
      Effect.gen(function* () {
        if (!isUmoId(id)) return yield* memoryNotFound(id)
        const old = yield* store.get(accountId, id.toLowerCase()).pipe(Effect.catch(storeFailure))
        if (Option.isNone(old)) return yield* memoryNotFound(id)
        const memory = old.value
        const expiry = yield* refusedIfFailed(expiryOf(change, Date.now()))
        const content = change.content ?? memory.content
        const metadata = change.metadata ?? memory.metadata
        const same = content === memory.content && canonicalJson(metadata) === canonicalJson(memory.metadata)
        if (same && expiry !== undefined) return { move: { memory, expiresAt: expiry } } as const
        if (same)
          return yield* new InvalidRequest({
            detail: `invalid request body: the update changes nothing: memory ${memory.umo_id} already says this, with this metadata`
          })
        if (memory.immutable) return yield* immutable(memory.umo_id)
        const expiresAt = expiry === undefined ? memory.expires_at : expiry
        const timestamp = change.timestamp ?? (change.content === undefined ? memory.timestamp : undefined)
        const version: CaptureRequest = {
          content,
          ...(memory.source === null ? {} : { source: memory.source }),
          ...(timestamp === undefined ? {} : { timestamp }),
          ...(memory.user_id === null ? {} : { user_id: memory.user_id }),
          ...(memory.agent_id === null ? {} : { agent_id: memory.agent_id }),
          ...(memory.session_id === null ? {} : { session_id: memory.session_id }),
          metadata,
          ...(expiresAt === null ? {} : { expires_at: expiresAt }),
          supersedes: [memory.umo_id],
          // The caller said what this version replaces: the fact rules decide nothing more here.
          infer_updates: false
        }
        return { version } as const
      })

    /** `PATCH /v1/memories/{id}`: a new version, or the expiry moved (see `versionOf`). */
    const update = (accountId: string, id: string, input: unknown, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const asked = yield* versionOf(accountId, id, yield* decodeUpdate(input))
        return "move" in asked
          ? yield* moveExpiry(accountId, asked.move.memory, asked.move.expiresAt)
          : yield* captures.capture(accountId, asked.version, options)
      })

    /**
     * Changes 1–100 memories as one unit (`POST /v1/memories/update`): every new version stored in
     * one transaction, each superseding its memory with a signed entry, or — one change refused,
     * naming `updates.<i>` — none of them. An expiry alone is moved by `update`, not here.
     */
    const updateMany = (accountId: string, input: unknown, options?: CaptureOptions) =>
      Effect.gen(function* () {
        const { updates } = yield* decodeUpdateMany(input)
        const items: Array<CaptureRequest> = []
        for (const [i, { umo_id, ...change }] of updates.entries()) {
          const asked = yield* versionOf(accountId, umo_id, change).pipe(
            Effect.mapError((error) =>
              error instanceof InvalidRequest
                ? new InvalidRequest({
                    detail: `invalid request body: updates.${i}: ${error.detail.replace(/^invalid request body: /, "")}; nothing was changed`
                  })
                : error
            )
          )
          if ("move" in asked)
            return yield* new InvalidRequest({
              detail: `invalid request body: updates.${i}: give content or metadata (an expiry alone is moved by PATCH /v1/memories/{id}); nothing was changed`
            })
          items.push(asked.version)
        }
        return yield* captures.batch(accountId, { items }, options, {
          operation: "update-many",
          field: (i) => `invalid request body: updates.${i}`
        })
      })

    /**
     * Moves a current memory's expiry in place (a LangGraph read refreshing its TTL, say): the same
     * memory, no new version, and its capture receipt signed again as the answer.
     */
    const moveExpiry = (accountId: string, memory: StoredMemory, expiresAt: string | null) =>
      Effect.gen(function* () {
        if (memory.superseded_by !== null)
          return yield* new InvalidRequest({
            detail: `invalid request body: memory ${memory.umo_id} is superseded by ${memory.superseded_by}; change that one`
          })
        const moved = yield* store
          .setExpiry(accountId, memory.umo_id, expiresAt)
          .pipe(Effect.catch(storeFailure))
        if (Option.isNone(moved)) return yield* memoryNotFound(memory.umo_id)
        const check = yield* ledger
          .check(accountId, memory.umo_id, "capture")
          .pipe(Effect.catch(storeFailure))
        if (Option.isNone(check)) return yield* memoryNotFound(memory.umo_id)
        const { entry } = check.value
        const receipt = yield* ledger.signReceipt({
          type: "umo-capture-receipt",
          umo_id: memory.umo_id,
          entry
        })
        return {
          umo_id: memory.umo_id,
          quality_score: memory.quality_score,
          created_at: memory.created_at,
          content_hash: memory.content_hash,
          receipt,
          supersedes: [],
          superseded_by: null
        } satisfies Captured
      })

    return { update, updateMany }
  })
