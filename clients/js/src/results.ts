/** Results of the calls beyond the nine verbs: answers, comparisons, account and models. */
import { list, num, obj, optNum, optStr, type Raw, str } from "./fields.js"
import { type LaterRelated, laterRelatedOf } from "./models.js"

export interface Citation {
  /** The `[n]` marker in the answer. */
  readonly index: number
  readonly umoId: string
  readonly title: string
  readonly snippet: string
  readonly similarity: number
  /** Later memories of the same person linked to the cited one, newest first. */
  readonly laterRelated: ReadonlyArray<LaterRelated>
}

/** What `answer` (`POST /v1/ask`) returns. */
export class Answer {
  /** The answer text with `[n]` markers pointing at `citations`. */
  readonly text: string
  readonly citations: ReadonlyArray<Citation>
  readonly confidence: number
  /** `extractive`, `generative`, or `no_context` when nothing relevant was found. */
  readonly method: string
  readonly questionType: string
  readonly model: string
  constructor(readonly raw: Raw) {
    this.text = str(raw, "answer")
    this.citations = list(raw, "citations").map((c) => ({
      index: num(c, "index"),
      umoId: str(c, "umo_id"),
      title: str(c, "title"),
      snippet: str(c, "snippet"),
      similarity: num(c, "similarity"),
      laterRelated: laterRelatedOf(c)
    }))
    this.confidence = num(raw, "confidence")
    this.method = str(raw, "method")
    this.questionType = str(raw, "question_type")
    this.model = str(raw, "model")
  }
}

/** What `compare` (`POST /v1/match`) returns. */
export class Comparison {
  readonly score: number
  readonly similarity: number
  /** `duplicate`, `related` or `unrelated`. */
  readonly relationship: string
  readonly matched: boolean
  readonly threshold: number
  /** With `explain: true`: the weighted parts of the score and what the two memories share. */
  readonly breakdown: Raw | null
  constructor(readonly raw: Raw) {
    this.score = num(raw, "score")
    this.similarity = num(raw, "similarity")
    this.relationship = str(raw, "relationship")
    this.matched = raw.matched === true
    this.threshold = num(raw, "threshold")
    this.breakdown = (raw.breakdown ?? null) as Raw | null
  }
}

/** What `account` returns: who the key belongs to. */
export class Account {
  readonly userId: string
  readonly workspaceId: string | null
  readonly name: string
  readonly keyId: string
  readonly keyStatus: string
  readonly tier: string
  readonly umoLimit: number | null
  readonly searchLimit: number | null
  readonly beta: boolean
  constructor(readonly raw: Raw) {
    const account = obj(raw, "account")
    const key = obj(raw, "key")
    const plan = obj(raw, "plan")
    this.userId = str(account, "user_id")
    this.workspaceId = optStr(account, "workspace_id")
    this.name = str(account, "name")
    this.keyId = str(key, "key_id")
    this.keyStatus = str(key, "status")
    this.tier = str(plan, "tier")
    this.umoLimit = optNum(plan, "umo_limit")
    this.searchLimit = optNum(plan, "search_limit")
    this.beta = plan.beta === true
  }
}

/** What `models` returns: the answer models `answer` accepts. */
export class Models {
  /** `available` is false for a local model whose weights are not installed on the server (`detail` says why). */
  readonly local: ReadonlyArray<{
    readonly id: string
    readonly isDefault: boolean
    readonly method: string
    readonly available: boolean
    readonly detail: string | null
  }>
  readonly cloud: ReadonlyArray<{ readonly id: string; readonly requiresKey: boolean }>
  constructor(readonly raw: Raw) {
    this.local = list(raw, "local").map((m) => ({
      id: str(m, "id"),
      isDefault: m.default === true,
      method: optStr(m, "method") ?? "extractive",
      available: m.available !== false,
      detail: optStr(m, "detail")
    }))
    this.cloud = list(raw, "cloud").map((m) => ({ id: str(m, "id"), requiresKey: m.requires_key === true }))
  }
  /** The model `answer` uses when none is named. */
  get defaultModel(): string | undefined {
    return this.local.find((m) => m.isDefault)?.id
  }
}

/** A category memories are filed under: its name, and the description the categorizer reads. */
export interface Category {
  readonly name: string
  readonly description: string
}

/** What `categories` returns: the account's own list, or the default one (`origin`). */
export class CategoryList {
  readonly categories: ReadonlyArray<Category>
  /** `account`: the account's own list; `default`: Mem0's default fifteen. */
  readonly origin: "account" | "default"
  constructor(readonly raw: Raw) {
    this.categories = (Array.isArray(raw.categories) ? raw.categories : []) as ReadonlyArray<Category>
    this.origin = raw.origin === "account" ? "account" : "default"
  }
}

/** A webhook of the account (`webhooks`), and how its deliveries stand. */
export class Webhook {
  readonly webhookId: string
  readonly url: string
  readonly name: string | null
  /** memory.added, memory.updated, memory.superseded, memory.deleted, memory.expired. */
  readonly events: ReadonlyArray<string>
  readonly createdAt: string
  /** The chain position delivered so far. */
  readonly deliveredSeq: number
  /** Failed deliveries of the next event, and the last failure's reason. */
  readonly attempts: number
  readonly lastError: string | null
  /** Only as `createWebhook` answers: verifies each delivery's `umo-signature`. */
  readonly secret: string | null
  constructor(readonly raw: Raw) {
    this.webhookId = String(raw.webhook_id ?? "")
    this.url = String(raw.url ?? "")
    this.name = typeof raw.name === "string" ? raw.name : null
    this.events = Array.isArray(raw.events) ? raw.events.map(String) : []
    this.createdAt = String(raw.created_at ?? "")
    this.deliveredSeq = Number(raw.delivered_seq ?? 0)
    this.attempts = Number(raw.attempts ?? 0)
    this.lastError = typeof raw.last_error === "string" ? raw.last_error : null
    this.secret = typeof raw.secret === "string" ? raw.secret : null
  }
}
