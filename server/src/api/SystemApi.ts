import { Results, Unavailable } from "@umo/memory"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

/** The in-process search index: what it holds against its budget (`UMO_INDEX_MEMORY_MB`). */
export const IndexHealth = Schema.Struct({
  serving: Schema.Number.annotate({ description: "accounts whose searches the index answers" }),
  loading: Schema.Number.annotate({ description: "accounts being loaded or catching up" }),
  memories: Schema.Number.annotate({ description: "memories held" }),
  held_mb: Schema.Number.annotate({ description: "memory the indexes hold, about (MiB)" }),
  budget_mb: Schema.Number.annotate({
    description:
      "the most they may hold (UMO_INDEX_MEMORY_MB); past it the least recently searched account is dropped"
  }),
  evictions: Schema.Number.annotate({
    description: "accounts dropped to keep within the budget since start"
  }),
  shard: Schema.NullOr(Schema.String).annotate({
    description: "k/n when this server indexes one shard of the accounts (UMO_INDEX_SHARD)"
  })
})

/**
 * A re-embedding this process runs (`UMO_REEMBED=on`, the store pinned to another model than the
 * configured one), or one it followed (another process on the same database moved the store).
 */
export const ReembeddingHealth = Schema.Struct({
  from: Schema.String.annotate({ description: "the model searches answer with until the switch" }),
  to: Schema.String.annotate({ description: "the model the memories are being embedded with" }),
  state: Schema.Literals(["embedding", "switching", "switched", "failed"]).annotate({
    description:
      "embedding: batches staged in the background; switching: the one transaction that moves the store to the new model; switched: done (by this process, or by another one and followed here); failed: taken up again shortly, from what is staged, or by loading the model another process moved the store to (see detail)"
  }),
  staged: Schema.Number.annotate({ description: "memories with the new model's vectors staged" }),
  total: Schema.Number.annotate({ description: "memories in the store" }),
  detail: Schema.NullOr(Schema.String).annotate({ description: "why it failed, when it did" })
})

/**
 * `GET /health`: liveness, no authentication, a flat body: `status`, the search index's figures and
 * the re-embedding under way (null: none).
 */
export const Health = Schema.Struct({
  status: Schema.Literal("healthy"),
  index: IndexHealth,
  reembedding: Schema.NullOr(ReembeddingHealth)
})

export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health", { success: Health }),
  HttpApiEndpoint.get("signingKeys", "/.well-known/jwks.json", {
    success: Results.SigningKeys,
    error: Unavailable
  })
) {}
