import { describeIssue, InvalidRequest } from "@umo/memory"
import { Effect } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { SchemaErrors } from "../api/SchemaErrors.js"

const where: Record<string, string> = {
  Body: "request body",
  Payload: "request body",
  Query: "query string",
  Params: "path",
  Headers: "headers",
  ResponseHeaders: "response headers"
}

export const SchemaErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(SchemaErrors, (error) =>
  Effect.fail(
    new InvalidRequest({
      detail: describeIssue(error.cause.issue, `invalid ${where[error.kind] ?? error.kind}: `)
    })
  )
)
