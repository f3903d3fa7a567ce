/**
 * Results as small typed objects with camelCase fields; each keeps the response it came from in
 * `raw` (snake_case, as the service sent it), so fields the client does not model stay reachable.
 */

import { list, num, obj, optNum, optStr, type Raw, str, strings } from "./fields.js"
import type { Jwk, KeyRotation, LedgerEntry } from "./signed.js"
import { type ImportedFrom, importedFrom } from "./transfers.js"

export type { LedgerEntry } from "./signed.js"
export type { Raw }

/** A metadata value: a string, number, boolean, null or list of strings. */
export type MetadataValue = string | number | boolean | null | ReadonlyArray<string>

export interface Entity {
  readonly text: string
  readonly type: string
  readonly start: number
  readonly end: number
}

export interface Triple {
  readonly subject: string
  readonly verb: string
  readonly object: string
}

export interface Topic {
  readonly name: string
  readonly score: number
}

/** A whole memory (`get`). */
export class Memory {
  readonly umoId: string
  readonly summary: string
  readonly entities: ReadonlyArray<Entity>
  readonly triples: ReadonlyArray<Triple>
  readonly topics: ReadonlyArray<Topic>
  readonly tone: { readonly label: string; readonly score: number }
  readonly qualityScore: number
  readonly createdAt: string
  /** When the content itself was written (the `timestamp` given at capture). */
  readonly timestamp: string
  readonly source: string | null
  readonly language: string
  readonly contentHash: string
  readonly semanticHash: string
  /** The normalized content: the text `contentHash` is computed from and entity offsets point into. */
  readonly contentText: string
  /** What the service's own plugins found, under each plugin's name (empty with the default plugins). */
  readonly extensions: Raw
  /** The end user, agent and conversation inside the account it belongs to (null: none). */
  readonly userId: string | null
  readonly agentId: string | null
  readonly sessionId: string | null
  /** Your own tags. */
  readonly metadata: Readonly<Record<string, MetadataValue>>
  /** The memories it replaced, oldest first. */
  readonly supersedes: ReadonlyArray<string>
  /** The memory that replaced it, or null while it is current. */
  readonly supersededBy: string | null
  readonly supersededAt: string | null
  /** Where it was imported from (`importMemories`), or null when it was captured here. */
  readonly importedFrom: ImportedFrom | null
  /** When it expires (ISO 8601), or null: never. */
  readonly expiresAt: string | null
  /** Captured immutable: updates and supersessions of it are refused. */
  readonly immutable: boolean
  /** The categories it is filed under, best fitting first. */
  readonly categories: ReadonlyArray<string>
  constructor(readonly raw: Raw) {
    this.umoId = str(raw, "umo_id")
    this.summary = str(raw, "summary")
    this.entities = list(raw, "entities") as unknown as ReadonlyArray<Entity>
    this.triples = list(raw, "svo_triples") as unknown as ReadonlyArray<Triple>
    this.topics = list(raw, "topics") as unknown as ReadonlyArray<Topic>
    this.tone = (raw.tone ?? { label: "neutral", score: 0 }) as Memory["tone"]
    this.qualityScore = num(raw, "quality_score")
    this.createdAt = str(raw, "created_at")
    this.timestamp = str(raw, "timestamp")
    this.source = optStr(raw, "source")
    this.language = str(raw, "language")
    this.contentHash = str(raw, "content_hash")
    this.semanticHash = str(raw, "semantic_hash")
    this.contentText = str(raw, "content_text")
    this.extensions = obj(raw, "extensions")
    this.userId = optStr(raw, "user_id")
    this.agentId = optStr(raw, "agent_id")
    this.sessionId = optStr(raw, "session_id")
    this.metadata = obj(raw, "metadata") as Memory["metadata"]
    this.supersedes = strings(raw, "supersedes")
    this.supersededBy = optStr(raw, "superseded_by")
    this.supersededAt = optStr(raw, "superseded_at")
    this.importedFrom = importedFrom(raw)
    this.expiresAt = optStr(raw, "expires_at")
    this.immutable = raw.immutable === true
    this.categories = strings(raw, "categories")
  }
}

/** What `capture` returns: the new memory's id and its provenance receipt. */
export class Captured {
  readonly umoId: string
  readonly qualityScore: number
  readonly createdAt: string
  readonly contentHash: string
  /** Compact JWS over the capture entry of the account's hash chain. */
  readonly receipt: string
  /** The memories this capture superseded: those it named, then those its facts made out of date. */
  readonly supersedes: ReadonlyArray<string>
  /** A newer memory that superseded this one at once (its content was older), or null. */
  readonly supersededBy: string | null
  /**
   * What the capture could not do but did not need to keep the memory: the update judge failed or
   * timed out, so no update was inferred. Empty when all went well.
   */
  readonly warnings: ReadonlyArray<string>
  /**
   * The current memory this capture repeated (the same text, source, scope and metadata): nothing new was
   * stored, and `umoId` is that memory's. Null when the capture stored a memory.
   */
  readonly duplicateOf: string | null
  constructor(readonly raw: Raw) {
    this.umoId = str(raw, "umo_id")
    this.qualityScore = num(raw, "quality_score")
    this.createdAt = str(raw, "created_at")
    this.contentHash = str(raw, "content_hash")
    this.receipt = str(raw, "receipt")
    this.supersedes = strings(raw, "supersedes")
    this.supersededBy = optStr(raw, "superseded_by")
    this.warnings = strings(raw, "warnings")
    this.duplicateOf = optStr(raw, "duplicate_of")
  }
}

/** What `upload` returns: a capture, plus the detected format and the length of the extracted text. */
export class Uploaded extends Captured {
  readonly summary: string
  readonly format: string
  readonly characters: number
  constructor(raw: Raw) {
    super(raw)
    this.summary = str(raw, "summary")
    this.format = str(raw, "format")
    this.characters = num(raw, "characters")
  }
}

/** Who a memory belongs to and its tags, as `ask` and `list` show them. */
abstract class Belonging {
  readonly userId: string | null
  readonly agentId: string | null
  readonly sessionId: string | null
  readonly metadata: Readonly<Record<string, MetadataValue>>
  readonly source: string | null
  /** When the content was written. */
  readonly timestamp: string
  /** The memory that replaced it, or null while it is current. */
  readonly supersededBy: string | null
  /** The categories it is filed under, best fitting first. */
  readonly categories: ReadonlyArray<string>
  constructor(readonly raw: Raw) {
    this.userId = optStr(raw, "user_id")
    this.agentId = optStr(raw, "agent_id")
    this.sessionId = optStr(raw, "session_id")
    this.categories = strings(raw, "categories")
    this.metadata = obj(raw, "metadata") as Belonging["metadata"]
    this.source = optStr(raw, "source")
    this.timestamp = str(raw, "timestamp")
    this.supersededBy = optStr(raw, "superseded_by")
  }
}

/**
 * A later memory of the same person linked to a result (`laterRelated`): by the update judge or by
 * nearness in meaning. Where UMO did not decide that it replaces the result, your model can.
 */
export interface LaterRelated {
  readonly umoId: string
  readonly content: string
  /** When it was said. */
  readonly timestamp: string
  /** `judge`: read as likely making the result out of date; `nearness`: it speaks of the same thing. */
  readonly link: "judge" | "nearness"
  /** The judge's probability, or the cosine similarity for a link by nearness. */
  readonly score: number
}

/** The `later_related` of a search result or citation. */
export const laterRelatedOf = (raw: Raw): ReadonlyArray<LaterRelated> =>
  (Array.isArray(raw.later_related) ? list(raw, "later_related") : []).map((l) => ({
    umoId: str(l, "umo_id"),
    content: str(l, "content_text"),
    timestamp: str(l, "timestamp"),
    link: str(l, "link") === "judge" ? "judge" : "nearness",
    score: num(l, "score")
  }))

/** One search result (`ask`). */
export class Match extends Belonging {
  readonly umoId: string
  readonly content: string
  /** Ranking score: higher is more relevant. */
  readonly score: number
  /** How many memories said this same text: one match stands for them all, at the newest's time. */
  readonly timesSaid: number
  /** For the first three results: later memories of the same person linked to it, newest first. */
  readonly laterRelated: ReadonlyArray<LaterRelated>
  constructor(raw: Raw) {
    super(raw)
    this.umoId = str(raw, "umo_id")
    this.content = str(raw, "content_text")
    this.score = num(raw, "score")
    this.timesSaid = num(raw, "times_said") || 1
    this.laterRelated = laterRelatedOf(raw)
  }
}

/** One row of `list`. */
export class MemorySummary extends Belonging {
  readonly umoId: string
  readonly summary: string
  readonly qualityScore: number
  readonly createdAt: string
  /** When it expires (ISO 8601), or null: never. */
  readonly expiresAt: string | null
  /** Captured immutable: updates and supersessions of it are refused. */
  readonly immutable: boolean
  constructor(raw: Raw) {
    super(raw)
    this.umoId = str(raw, "umo_id")
    this.summary = str(raw, "summary")
    this.qualityScore = num(raw, "quality_score")
    this.createdAt = str(raw, "created_at")
    this.expiresAt = optStr(raw, "expires_at")
    this.immutable = raw.immutable === true
  }
}

/** A page of `list`. */
export class MemoryPage {
  readonly items: ReadonlyArray<MemorySummary>
  readonly totalCount: number
  readonly hasMore: boolean
  constructor(readonly raw: Raw) {
    this.items = list(raw, "items").map((item) => new MemorySummary(item))
    this.totalCount = num(raw, "total_count")
    this.hasMore = raw.has_more === true
  }
}

/** One of the account's end users, agents or conversations (`scopes`). */
export class ScopeSummary {
  readonly kind: "user" | "agent" | "session"
  readonly id: string
  /** Its current memories. */
  readonly memories: number
  /** The time of its newest memory. */
  readonly lastMemoryAt: string
  constructor(readonly raw: Raw) {
    this.kind = str(raw, "kind") as ScopeSummary["kind"]
    this.id = str(raw, "id")
    this.memories = num(raw, "memories")
    this.lastMemoryAt = str(raw, "last_memory_at")
  }
}

/** A page of `scopes`, most recently active first. */
export class ScopePage {
  readonly scopes: ReadonlyArray<ScopeSummary>
  readonly totalCount: number
  readonly hasMore: boolean
  constructor(readonly raw: Raw) {
    this.scopes = list(raw, "scopes").map((scope) => new ScopeSummary(scope))
    this.totalCount = num(raw, "total_count")
    this.hasMore = raw.has_more === true
  }
}

/** One item of `batch`: a capture, or the reason this item was refused (the others still land). */
export class BatchItem {
  readonly index: number
  readonly success: boolean
  readonly umoId: string | null
  readonly qualityScore: number | null
  readonly receipt: string | null
  /** What this item superseded (empty when it failed). */
  readonly supersedes: ReadonlyArray<string>
  readonly supersededBy: string | null
  /** The current memory this item repeated (nothing new stored), or null. */
  readonly duplicateOf: string | null
  readonly error: { readonly status: number; readonly detail: string } | null
  constructor(readonly raw: Raw) {
    this.index = num(raw, "index")
    this.success = raw.success === true
    this.umoId = optStr(raw, "umo_id")
    this.qualityScore = optNum(raw, "quality_score")
    this.receipt = optStr(raw, "receipt")
    this.supersedes = strings(raw, "supersedes")
    this.supersededBy = optStr(raw, "superseded_by")
    this.duplicateOf = optStr(raw, "duplicate_of")
    this.error = (raw.error ?? null) as BatchItem["error"]
  }
}

/**
 * A page of the account's hash chain, newest first (`chain`). The entries are as signed: check each
 * with `verifyEntry` and its link with `prev_hash` (the entry_hash of the entry one `seq` lower).
 */
export class ChainPage {
  readonly entries: ReadonlyArray<LedgerEntry>
  readonly hasMore: boolean
  /** The `before` of the next (older) page; null on the last page. */
  readonly nextBefore: number | null
  constructor(readonly raw: Raw) {
    this.entries = list(raw, "entries") as unknown as ReadonlyArray<LedgerEntry>
    this.hasMore = raw.has_more === true
    this.nextBefore = optNum(raw, "next_before")
  }
}

/** What `verify` returns: the service's check of a memory, and the evidence to check it offline. */
export class Proof {
  /** The stored memory still hashes to what was recorded at capture. */
  readonly valid: boolean
  readonly hashChainValid: boolean
  readonly chainTampered: boolean
  readonly firstPublished: string
  readonly umoId: string
  readonly source: string | null
  readonly contentHash: string
  readonly semanticHash: string
  readonly verificationMode: string
  /** The signed capture entry (see `verifyProof` for the offline check). */
  readonly entry: LedgerEntry | null
  /** The memory that replaced it, or null while it is current. */
  readonly supersededBy: string | null
  /** The signed entry recording that replacement (`verifyProof` checks it too), or null. */
  readonly supersession: LedgerEntry | null
  /** The key the service says signed the entry; pin your own copy rather than trusting this one. */
  readonly publicKey: Jwk
  /** The service's key records: `verifyProof` follows them from the keys you pinned. */
  readonly rotations: ReadonlyArray<KeyRotation>
  constructor(readonly raw: Raw) {
    const audit = obj(raw, "audit_proof")
    this.valid = raw.valid === true
    this.hashChainValid = raw.hash_chain_valid === true
    this.chainTampered = audit.chain_tampered === true
    this.firstPublished = str(raw, "first_published")
    this.umoId = str(raw, "umo_id")
    this.source = optStr(raw, "source")
    this.contentHash = str(audit, "content_hash")
    this.semanticHash = str(audit, "semantic_hash")
    this.verificationMode = str(audit, "verification_mode")
    this.entry = (raw.chain ?? null) as LedgerEntry | null
    this.supersededBy = optStr(raw, "superseded_by")
    this.supersession = (raw.supersession ?? null) as LedgerEntry | null
    this.publicKey = (raw.public_key ?? {}) as Jwk
    this.rotations = (Array.isArray(raw.rotations) ? raw.rotations : []) as ReadonlyArray<KeyRotation>
  }
}

/** What `explain` returns. */
export class Explanation {
  readonly summary: string
  readonly keyReasons: ReadonlyArray<string>
  readonly verificationMode: string
  /** Re-running the pipeline on the stored content gives the same extraction. */
  readonly reproducible: boolean
  constructor(readonly raw: Raw) {
    const human = obj(raw, "human")
    const audit = obj(raw, "audit")
    this.summary = str(human, "summary")
    this.keyReasons = (Array.isArray(human.key_reasons) ? human.key_reasons : []) as ReadonlyArray<string>
    this.verificationMode = str(audit, "verification_mode")
    this.reproducible = audit.reproducible === true
  }
}

/** What `forget` returns: a signed receipt of the deletion (see `verifyReceipt`). */
export class DeletionReceipt {
  readonly forgotten: boolean
  readonly umoId: string
  readonly deletedAt: string
  readonly receipt: string
  constructor(readonly raw: Raw) {
    this.forgotten = raw.forgotten === true
    this.umoId = str(raw, "umo_id")
    this.deletedAt = str(raw, "deleted_at")
    this.receipt = str(raw, "receipt")
  }
}
