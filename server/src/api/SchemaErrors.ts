import { InvalidRequest } from "@umo/memory"
import { HttpApiMiddleware } from "effect/http-api"

/** Turns a request that fails its Schema (bad JSON, missing fields, wrong types) into a 422 `{detail}`. */
export class SchemaErrors extends HttpApiMiddleware.Service<SchemaErrors>()("@umo/server/SchemaErrors", {
  error: InvalidRequest
}) {}
