import { type SchemaIssue as Issue, SchemaIssue } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { Unprocessable } from "./Errors.js"

const standard = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * What a failed decoding says, field by field: `items.3.content: must contain a visible character;
 * limit: Expected a value between 1 and 100` (the field's path, then the rule it broke), after
 * `prefix` (e.g. "invalid request body: ").
 */
export const describeIssue = (issue: Issue.Issue, prefix = ""): string => {
  const problems = standard(issue).issues.map((problem) => {
    const path = (problem.path ?? [])
      .map((p) => (typeof p === "object" ? String(p.key) : String(p)))
      .join(".")
    return `${path.length > 0 ? `${path}: ` : ""}${problem.message.replace(/\s+/g, " ")}`
  })
  const shown = problems.slice(0, 5).join("; ")
  return `${prefix}${shown}${problems.length > 5 ? `; and ${problems.length - 5} more` : ""}`.slice(0, 1_000)
}

/** Turns a request that fails its Schema (bad JSON, missing fields, wrong types) into a 422 `{detail}`. */
export class SchemaErrors extends HttpApiMiddleware.Service<SchemaErrors>()("@umo/server/SchemaErrors", {
  error: Unprocessable
}) {}
