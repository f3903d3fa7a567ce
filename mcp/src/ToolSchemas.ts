/**
 * How a tool is declared: the JSON Schemas of its arguments and result (derived from the service's
 * schemas), its hints, and the builder the tool lists (`Tools.ts`, `TransferTools.ts`) use.
 * @module
 */
import {
  describeIssue,
  InvalidRequest,
  type MemoryAccount,
  type MemoryError,
  type MemoryShape
} from "@umo/memory"
import { Effect, Schema } from "effect"

/** A tool's arguments as MCP delivers them: a JSON object (absent arguments are an empty one). */
export type ToolArguments = Readonly<Record<string, unknown>>

/** MCP's tool annotations: hints to a host about what a call does (not enforced). */
export interface ToolHints {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

/** One tool: what `tools/list` shows of it, and what `tools/call` runs. */
export interface MemoryTool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema: Record<string, unknown>
  readonly annotations: ToolHints
  /** Runs the call; the service checks the arguments and names a broken rule in its `detail`. */
  readonly call: (
    memory: MemoryShape,
    args: ToolArguments
  ) => Effect.Effect<object, MemoryError, MemoryAccount>
  /** The result in words, for hosts that show text only: one text content block, or several. */
  readonly text: (result: never) => string | ReadonlyArray<string>
}

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

/** The result as JSON crosses the wire (the schemas' encoded side). */
const encode =
  (schema: Schema.Top) =>
  (value: unknown): object =>
    Schema.encodeUnknownSync(schema as Schema.Codec<unknown, unknown>)(value) as object

/** The hints of a tool that only reads. */
export const reads: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false
}

/** A tool from its schemas and its call; `text` is given the result as it crosses the wire. */
export const tool = <I extends Schema.Top, O extends Schema.Top>(definition: {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly input: I
  readonly output: O
  readonly annotations: ToolHints
  readonly call: (
    memory: MemoryShape,
    args: ToolArguments
  ) => Effect.Effect<O["Type"], MemoryError, MemoryAccount>
  readonly text: (result: O["Type"]) => string | ReadonlyArray<string>
}): MemoryTool => ({
  name: definition.name,
  title: definition.title,
  description: definition.description,
  inputSchema: toolSchema(definition.input),
  outputSchema: toolSchema(definition.output),
  annotations: definition.annotations,
  call: (memory, args) =>
    Effect.map(definition.call(memory, args), (result) => encode(definition.output)(result)),
  text: definition.text as (result: never) => string | ReadonlyArray<string>
})

/**
 * A tool's arguments decoded with its input schema, for a tool that checks some itself (the
 * service checks the rest again); a failure names each field and rule, as the service's do.
 */
export const decodeArguments =
  <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) =>
  (args: ToolArguments): Effect.Effect<S["Type"], InvalidRequest> =>
    Schema.decodeUnknownEffect(schema)(args, { onExcessProperty: "error" }).pipe(
      Effect.mapError(
        (error) => new InvalidRequest({ detail: describeIssue(error.issue, "invalid arguments: ") })
      )
    )

/** The `umo_id` argument of a tool that takes one, or the rule it breaks. */
export const idArgument = (args: ToolArguments): Effect.Effect<string, InvalidRequest> => {
  const id = args["umo_id"]
  // As everywhere: an argument the tool does not take is refused, never ignored.
  const other = Object.keys(args).find((key) => key !== "umo_id")
  if (other !== undefined)
    return Effect.fail(
      new InvalidRequest({ detail: `invalid arguments: ${other}: Expected no excess property` })
    )
  return typeof id === "string"
    ? Effect.succeed(id)
    : Effect.fail(new InvalidRequest({ detail: "umo_id: a memory id (a string) is required" }))
}
