import { InvalidRequest } from "@umo/memory"
import { Effect, Schema } from "effect"

/** A tool's arguments as MCP delivers them: a JSON object (absent arguments are an empty one). */
export type ToolArguments = Readonly<Record<string, unknown>>

/** A memory id argument. */
export const memoryId = Schema.String.annotate({
  description: "the memory's id (a UUID), as capture, search or list gave it"
})

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema is JSON of many shapes
type Json = Record<string, any>

/**
 * The JSON Schema (draft 2020-12) of what crosses the wire for `schema`, in the form MCP wants for
 * a tool's `inputSchema` and `outputSchema`: an object schema, definitions inlined under `$defs`.
 */
export const toolSchema = (schema: Schema.Top): Json => {
  const document = Schema.toJsonSchemaDocument(schema)
  const root = document.schema as Json
  const definitions = document.definitions as Json
  return {
    ...root,
    type: "object",
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {})
  }
}

/** The `umo_id` argument of a tool that takes one, or the rule it breaks. */
export const idArgument = (args: ToolArguments): Effect.Effect<string, InvalidRequest> => {
  const id = args["umo_id"]
  return typeof id === "string"
    ? Effect.succeed(id)
    : Effect.fail(new InvalidRequest({ detail: "umo_id: a memory id (a string) is required" }))
}
