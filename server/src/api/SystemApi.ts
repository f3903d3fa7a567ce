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

/** `GET /health`: liveness, no authentication, a flat body: `status` and the search index's figures. */
export const Health = Schema.Struct({ status: Schema.Literal("healthy"), index: IndexHealth })

export class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("health", "/health", { success: Health }),
  HttpApiEndpoint.get("signingKeys", "/.well-known/jwks.json", {
    success: Results.SigningKeys,
    error: Unavailable
  })
) {}
