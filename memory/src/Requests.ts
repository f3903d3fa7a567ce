/**
 * What each call of the Memory service takes, with every limit: the HTTP API's request bodies and
 * query strings are these same schemas, so both faces refuse the same input with the same words.
 * @module
 */
import { Category, maxCategories, webhookEvents } from "@umo/core"
import { Schema } from "effect"
import { Count, Metadata, QueryText, ScopeId, Source, Text, Timestamp, VisibleText } from "./Fields.js"
import { SelectionFields } from "./Filters.js"

/** A memory id a capture supersedes: an unknown or another account's one is a 404. */
const SupersededId = Schema.String.check(Schema.isMaxLength(100)).annotate({
  description: "a memory id of the account"
})

/** Who a memory belongs to inside the account, and the caller's tags: capture's optional fields. */
export const ScopeAndMetadata = {
  user_id: Schema.optional(ScopeId).annotate({ description: "the end user the memory is about or from" }),
  agent_id: Schema.optional(ScopeId).annotate({ description: "the agent the memory belongs to" }),
  session_id: Schema.optional(ScopeId).annotate({ description: "the conversation it came from" }),
  metadata: Schema.optional(Metadata)
}

/** What a capture says about the memories it updates. */
export const UpdateFields = {
  supersedes: Schema.optional(
    Schema.Array(SupersededId).check(Schema.isMaxLength(100, { message: "at most 100 ids" }))
  ).annotate({
    description:
      "memories of the account this one replaces: they get superseded_by, leave default list, search and ask, " +
      "and stay readable by id with a valid proof; an unknown id is a 404 and nothing is stored"
  }),
  dedupe: Schema.optional(Schema.Boolean).annotate({
    description:
      "answer with the current memory of the same text, source, scope and metadata (its umo_id, and duplicate_of) " +
      "instead of storing this one again, when this one's timestamp is the same or not given; the chain " +
      "records the repeat; default true (a capture naming supersedes is never a repeat)"
  }),
  infer_updates: Schema.optional(Schema.Boolean).annotate({
    description:
      "also supersede the current memories of the same scope whose facts this one states anew (where someone " +
      "lives, works, …); default true (the server's UMO_INFER_UPDATES)"
  })
}

/** At most ten years: an expiry further out is a mistake more often than a wish. */
export const longestTtlSeconds = 10 * 366 * 24 * 3600

/** How long a memory lasts (`expires_at` or `ttl`, not both): see `Lifetime` in `Results`. */
export const ExpiryFields = {
  expires_at: Schema.optional(Timestamp).annotate({
    description:
      "when the memory expires (a date means its start, UTC): from then on no list, search or answer returns " +
      "it, and the sweeper erases it with a signed erasure receipt; must be in the future; default never"
  }),
  ttl: Schema.optional(Count(1, longestTtlSeconds)).annotate({
    description: "the memory expires this many seconds from now (instead of expires_at); at most ten years"
  })
}

/** What a capture says about the memory's lifetime. */
export const LifetimeFields = {
  ...ExpiryFields,
  immutable: Schema.optional(Schema.Boolean).annotate({
    description:
      "refuse every later update or supersession of this memory (it can still be deleted); default false"
  })
}

/** A list of categories an account files its memories under, or a capture brings. */
export const CategoryList = Schema.Array(Category)
  .check(Schema.isBetweenLength(1, maxCategories, { message: `1 to ${maxCategories} categories` }))
  .check(
    Schema.makeFilter((list: ReadonlyArray<Category>) =>
      new Set(list.map((c) => c.name)).size === list.length ? undefined : "each category's name once"
    )
  )

/** What a capture says about the categories it is filed under (by default the account's list decides). */
export const CategoryFields = {
  categories: Schema.optional(
    Schema.Array(Category.fields.name).check(Schema.isBetweenLength(1, 10, { message: "1 to 10 names" }))
  ).annotate({
    description:
      "file the memory under these categories, as given, instead of choosing them from the account's list"
  }),
  custom_categories: Schema.optional(CategoryList).annotate({
    description:
      "choose the memory's categories from this list (name and description each) instead of the account's"
  })
}

/** One capture: `POST /v1/process`, and each item of a batch. */
export const CaptureRequest = Schema.Struct({
  content: VisibleText(50_000).annotate({ description: "the text to capture: 1 to 50,000 characters" }),
  source: Schema.optional(Schema.NullOr(Source)),
  timestamp: Schema.optional(Timestamp),
  ...ScopeAndMetadata,
  ...UpdateFields,
  ...LifetimeFields,
  ...CategoryFields
})
export type CaptureRequest = typeof CaptureRequest.Type

/**
 * 1–100 items. Each is checked on its own against the capture request: an item that is not one is
 * answered in its result (`success: false`, status 422) and the others are still captured, so any
 * JSON value is a valid item (the schema says so: a capture request, or anything else).
 */
export const BatchRequest = Schema.Struct({
  items: Schema.Array(Schema.Union([CaptureRequest, Schema.Unknown])).check(Schema.isBetweenLength(1, 100))
})
export type BatchRequest = typeof BatchRequest.Type

/**
 * A change to a memory (`PATCH /v1/memories/{id}`): its new text, its new metadata (replacing the
 * old whole), or both, captured as a new version that supersedes it, in the same scope; or only
 * its expiry, moved in place.
 */
export const UpdateRequest = Schema.Struct({
  ...ExpiryFields,
  expires_at: Schema.optional(Schema.NullOr(Timestamp)).annotate({
    description:
      "when the memory expires (null: never). Alone (or with ttl), it moves the expiry in place, with no new " +
      "version; with content or metadata, the new version expires then; default the memory's own"
  }),
  content: Schema.optional(VisibleText(50_000)).annotate({
    description: "the new text: 1 to 50,000 characters; default the memory's own"
  }),
  metadata: Schema.optional(Metadata).annotate({
    description: "the new metadata, replacing the memory's whole; default the memory's own"
  }),
  timestamp: Schema.optional(Timestamp).annotate({
    description:
      "when the new version happened; default the memory's own when only metadata changes, else now"
  })
}).check(
  Schema.makeFilter(
    (request: {
      readonly content?: string | undefined
      readonly metadata?: unknown
      readonly expires_at?: string | null | undefined
      readonly ttl?: number | undefined
    }) =>
      request.content !== undefined ||
      request.metadata !== undefined ||
      request.expires_at !== undefined ||
      request.ttl !== undefined
        ? undefined
        : "give content, metadata, expires_at or ttl: the change to make",
    {
      // Present (content and metadata not null: an optional field sent as null means "not given").
      toJsonSchema: () => ({
        anyOf: [
          { required: ["content"], properties: { content: { type: "string" } } },
          { required: ["metadata"], properties: { metadata: { type: "object" } } },
          { required: ["expires_at"] },
          { required: ["ttl"], properties: { ttl: { type: "integer" } } }
        ]
      })
    }
  )
)
export type UpdateRequest = typeof UpdateRequest.Type

/** A memory id a call names: an unknown or another account's one is a 404. */
const NamedId = Schema.String.check(Schema.isMaxLength(100)).annotate({
  description: "a memory id of the account"
})

/**
 * Changes of 1–100 memories as one unit (`POST /v1/memories/update`): each as `PATCH` takes it,
 * with the id it changes; all of them stored, or none.
 */
export const UpdateManyRequest = Schema.Struct({
  updates: Schema.Array(
    Schema.Struct({ umo_id: NamedId, ...UpdateRequest.fields }).check(
      Schema.makeFilter((change: { readonly content?: unknown; readonly metadata?: unknown }) =>
        change.content !== undefined || change.metadata !== undefined
          ? undefined
          : "give content, metadata or both"
      )
    )
  ).check(Schema.isBetweenLength(1, 100, { message: "1 to 100 changes" }))
})
export type UpdateManyRequest = typeof UpdateManyRequest.Type

/** 1–1,000 memories deleted as one unit (`POST /v1/memories/delete`): all of them, or none. */
export const ForgetManyRequest = Schema.Struct({
  umo_ids: Schema.Array(NamedId).check(Schema.isBetweenLength(1, 1_000, { message: "1 to 1,000 ids" }))
})
export type ForgetManyRequest = typeof ForgetManyRequest.Type

/** A page of the account's users, agents and sessions, most recently active first. */
export const ScopesRequest = Schema.Struct({
  kind: Schema.optional(Schema.Literals(["user", "agent", "session"])).annotate({
    description:
      "only end users (user_id), agents (agent_id) or conversations (session_id); default all three"
  }),
  prefix: Schema.optional(Text(200)).annotate({ description: "only ids starting with this text" }),
  limit: Schema.optional(Count(1, 100)).annotate({ description: "1 to 100; default 20" }),
  offset: Schema.optional(Count(0, Number.MAX_SAFE_INTEGER)).annotate({ description: "default 0" })
})
export type ScopesRequest = typeof ScopesRequest.Type

/** A page of the account's memories, newest first. */
export const ListRequest = Schema.Struct({
  limit: Schema.optional(Count(1, 100)).annotate({ description: "1 to 100; default 20" }),
  offset: Schema.optional(Count(0, Number.MAX_SAFE_INTEGER)).annotate({ description: "default 0" }),
  source: Schema.optional(Source),
  ...SelectionFields
})
export type ListRequest = typeof ListRequest.Type

/** A page of the account's hash chain, newest first. */
export const ChainRequest = Schema.Struct({
  limit: Schema.optional(Count(1, 100)).annotate({ description: "1 to 100; default 50" }),
  before: Schema.optional(Count(1, Number.MAX_SAFE_INTEGER)).annotate({
    description: "only entries with a lower seq: the next_before of the previous page; default none"
  })
})
export type ChainRequest = typeof ChainRequest.Type

export const SearchRequest = Schema.Struct({
  query: VisibleText(2_000).annotate({ description: "the question or search text: 1 to 2,000 characters" }),
  limit: Schema.optional(Count(1, 50)).annotate({ description: "1 to 50; default 5" }),
  source: Schema.optional(Source),
  rerank: Schema.optional(Schema.Boolean).annotate({
    description:
      "read the best 20 candidates with the cross-encoder, each beside the query, and fuse its order with " +
      "the first stage's (better first results, about 0.3 s more on two cores); default the server's " +
      "UMO_RERANK_SEARCH (false). Ignored where the server runs no reranker (UMO_RERANKER=none)"
  }),
  ...SelectionFields
})
export type SearchRequest = typeof SearchRequest.Type

/**
 * A question for an answer model. Which models exist is configuration (`GET /v1/ask/models`): the
 * service refuses an unknown one, and a cloud one without `provider_key`, with a 422; the served
 * `/openapi.json` lists them (an enum, and `provider_key` required for the cloud ones).
 */
export const AskRequest = Schema.Struct({
  question: VisibleText(2_000).annotate({ description: "a question: 1 to 2,000 characters" }),
  model: Schema.optional(Schema.String.check(Schema.isMaxLength(200))).annotate({
    description: "a model of GET /v1/ask/models; default: the default local model"
  }),
  provider_key: Schema.optional(
    Schema.String.check(
      Schema.isPattern(/^[!-~]{1,4096}$/u, { message: "must be 1 to 4,096 printable ASCII characters" })
    )
  ).annotate({
    description: "your own key for the provider of a cloud model (required for those); never stored"
  }),
  context_size: Schema.optional(Count(1, 20)).annotate({
    description: "memories given to the model: 1 to 20; default 5"
  }),
  source: Schema.optional(Source),
  ...SelectionFields
})
export type AskRequest = typeof AskRequest.Type

const { include_superseded: _included, ...erasedSelection } = SelectionFields

/** An erasure's fields (see `EraseRequest`). */
export const EraseFields = { source: Schema.optional(Source), ...erasedSelection }

/**
 * An erasure: every memory of one scope (an end user, an agent or a conversation), narrowed by
 * the other selection fields if given, superseded ones included. At least one scope is required,
 * so a request never erases the whole account by accident.
 */
export const EraseRequest = Schema.Struct(EraseFields).check(
  Schema.makeFilter(
    (request: {
      readonly user_id?: string | undefined
      readonly agent_id?: string | undefined
      readonly session_id?: string | undefined
    }) =>
      request.user_id !== undefined || request.agent_id !== undefined || request.session_id !== undefined
        ? undefined
        : "name the scope to erase: user_id, agent_id or session_id (at least one; the whole account is never erased at once)"
  )
)
export type EraseRequest = typeof EraseRequest.Type

export const MatchRequest = Schema.Struct({
  source_ulid: Schema.String.annotate({
    description: "a memory id; another account's or an unknown one is a 404"
  }),
  candidate_ulid: Schema.String.annotate({ description: "a memory id" }),
  explain: Schema.optional(Schema.Boolean),
  threshold: Schema.optional(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))).annotate({
    description: "0 to 1; default 0.5"
  })
})
export type MatchRequest = typeof MatchRequest.Type

export const ExplainRequest = Schema.Struct({
  query: Schema.optional(QueryText).annotate({
    description: "why the memory matches this query (1,000 characters at most)"
  })
})
export type ExplainRequest = typeof ExplainRequest.Type

/** The account's category list (`PUT /v1/account/categories`); null: back to the default list. */
export const CategoriesRequest = Schema.Struct({
  categories: Schema.NullOr(CategoryList).annotate({
    description:
      "the categories new memories are filed under, name and description each (the categorizer reads the " +
      "description); null: Mem0's default fifteen. Memories already captured keep theirs"
  })
})
export type CategoriesRequest = typeof CategoriesRequest.Type

/** A webhook to add (`POST /v1/webhooks`). */
export const WebhookRequest = Schema.Struct({
  url: Schema.String.check(
    Schema.makeFilter(
      (text: string) => {
        if (text.length > 2_000) return "at most 2,000 characters"
        try {
          const url = new URL(text)
          return url.protocol === "http:" || url.protocol === "https:"
            ? undefined
            : "must be an http or https URL"
        } catch {
          return "must be an http or https URL"
        }
      },
      { toJsonSchema: () => ({ pattern: "^https?://", maxLength: 2_000 }) }
    )
  ).annotate({
    description: "where the events are posted (http or https), e.g. https://example.com/umo-events"
  }),
  name: Schema.optional(Text(200)).annotate({ description: "your name for it: 1 to 200 characters" }),
  events: Schema.optional(
    Schema.Array(Schema.Literals(webhookEvents)).check(
      Schema.isMinLength(1, { message: "at least one event" })
    )
  ).annotate({
    description:
      "which events it hears: memory.added, memory.updated (a new version), memory.superseded, memory.deleted, " +
      "memory.expired; default all"
  })
})
export type WebhookRequest = typeof WebhookRequest.Type
