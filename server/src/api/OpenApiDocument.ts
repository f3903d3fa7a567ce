/**
 * What `/openapi.json` says beyond what Effect derives from the endpoints: query parameters typed
 * as what they decode to (an integer from 1 to 100, not "a string of digits"); the answers the
 * HTTP server gives before the API sees a request (413, 431, 408); and OpenAPI `links` from the
 * calls that hand out memory ids to the calls that take one, so a client — or a stateful tester —
 * can follow real ids.
 * @module
 */
import { Schema } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is JSON of many shapes, edited in place
type Json = Record<string, any>

/** A JSON Schema without the `null` branch an optional field gets: a query parameter is absent, not null. */
const withoutNull = (schema: Json): Json => {
  if (!Array.isArray(schema["anyOf"])) return schema
  const { anyOf, ...rest } = schema
  const branches = (anyOf as Array<Json>).filter((branch) => branch["type"] !== "null")
  return branches.length === 1 ? { ...rest, ...branches[0] } : { ...rest, anyOf: branches }
}

/** A JSON Schema with its `#/$defs/…` references pointing into the document's components. */
const intoComponents = (schema: Json): Json =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'))

/**
 * For each operation, the JSON Schema of each query parameter as decoded, and the definitions
 * they refer to (a filter expression is recursive).
 */
const decodedQueries = <Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<string, Groups>) => {
  const queries = new Map<string, Json>()
  const jsonValued = new Map<string, ReadonlySet<string>>()
  const definitions: Json = {}
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ group, endpoint }) => {
      if (endpoint.query === undefined) return
      // As the API decodes: a field it does not know is refused, so the document says so.
      const document = Schema.toJsonSchemaDocument(Schema.toType(endpoint.query), {
        onExcessProperty: "error"
      })
      queries.set(
        `${group.identifier}.${endpoint.identifier}`,
        intoComponents((document.schema as Json)["properties"] ?? {})
      )
      Object.assign(definitions, intoComponents(document.definitions as Json))
      // Which parameters travel as JSON text: those that decode to an object (the others are
      // strings, numbers and booleans, and the API takes no repeated parameters).
      const properties = queries.get(`${group.identifier}.${endpoint.identifier}`)!
      jsonValued.set(
        `${group.identifier}.${endpoint.identifier}`,
        new Set(
          Object.keys(properties).filter((name) => {
            const schema = withoutNull(properties[name])
            return schema["type"] === "object" || schema["$ref"] !== undefined
          })
        )
      )
    }
  })
  return { queries, jsonValued, definitions }
}

/** Where the calls that hand out memory ids put one, and the calls that take one by `{id}`. */
const idSources: Record<string, string> = {
  "memories.process": "$response.body#/data/umo_id",
  "memories.create": "$response.body#/data/umo_id",
  "memories.upload": "$response.body#/data/umo_id",
  "memories.list": "$response.body#/data/items/0/umo_id",
  "memories.query": "$response.body#/data/results/0/umo_id",
  "memories.search": "$response.body#/data/results/0/umo_id"
}
const idTakers: Record<string, string> = {
  GetMemory: "memories.get",
  ProveMemory: "memories.proof",
  ExplainMemory: "insight.explain",
  ForgetMemory: "memories.forget"
}

const errorBody = {
  content: {
    "application/json": {
      schema: { type: "object", properties: { detail: { type: "string" } }, required: ["detail"] }
    }
  }
}

/** What the HTTP server itself answers, before a request reaches the API (see `NodeHttp`). */
const platformErrors = {
  "431": { description: "the request line and headers are over 16 KB", ...errorBody },
  "408": { description: "the request did not arrive in time", ...errorBody }
}
const bodyErrors = {
  "400": {
    description: "the request body could not be read as its content type says (a malformed multipart body)",
    ...errorBody
  },
  "413": { description: "the request body is over 24 MB", ...errorBody }
}

const operations = (spec: Json) =>
  Object.values(spec["paths"] as Record<string, Record<string, Json>>).flatMap((item) => Object.values(item))

/** The document transform, for the API's `OpenApi.Transform` annotation (run on every generation). */
export const completeDocument =
  <Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<string, Groups>) =>
  (spec: Json): Json => {
    const { queries, jsonValued, definitions } = decodedQueries(api)
    spec["components"] = {
      ...spec["components"],
      schemas: { ...definitions, ...spec["components"]?.["schemas"] }
    }
    for (const operation of operations(spec)) {
      const decoded = queries.get(operation["operationId"])
      for (const parameter of (operation["parameters"] ?? []) as Array<Json>) {
        if (parameter["in"] !== "query" || !decoded?.[parameter["name"]]) continue
        const schema = withoutNull(decoded[parameter["name"]])
        // A JSON-valued parameter (`metadata`, `filters`) is described as OpenAPI describes one:
        // its schema under `content`, serialized as JSON and URL-encoded.
        if (jsonValued.get(operation["operationId"])?.has(parameter["name"])) {
          delete parameter["schema"]
          parameter["content"] = { "application/json": { schema } }
        } else parameter["schema"] = schema
      }
      operation["responses"] = {
        ...operation["responses"],
        ...platformErrors,
        ...(operation["requestBody"] ? bodyErrors : {})
      }
      // Multipart fields are text: an optional one is absent, never null.
      const form = operation["requestBody"]?.["content"]?.["multipart/form-data"]?.["schema"]?.["properties"]
      for (const name of Object.keys(form ?? {})) form[name] = withoutNull(form[name])
      const from = idSources[operation["operationId"]]
      const ok = operation["responses"]?.["200"]
      if (from !== undefined && ok !== undefined) {
        ok["links"] = {
          ...Object.fromEntries(
            Object.entries(idTakers).map(([name, operationId]) => [
              name,
              {
                operationId,
                parameters: { id: from },
                description: `the memory this call returned, by ${operationId}`
              }
            ])
          ),
          CompareMemory: {
            operationId: "insight.match",
            requestBody: { source_ulid: from, candidate_ulid: from, explain: true },
            description: "the memory this call returned, compared with itself"
          }
        }
      }
    }
    return spec
  }

/** The answer models a deployment offers (`GET /v1/ask/models`). */
interface AnswerModelList {
  readonly local: ReadonlyArray<{ readonly id: string; readonly available: boolean }>
  readonly cloud: ReadonlyArray<{ readonly id: string }>
}

/**
 * The document naming this deployment's answer models: `POST /v1/ask`'s `model` is one of them,
 * and a cloud model requires `provider_key` (the rules the service enforces with a 422).
 */
export const withAnswerModels = (spec: Json, models: AnswerModelList): Json => {
  const ask = operations(spec).find((operation) => operation["operationId"] === "ask.ask")
  const body: Json | undefined = ask?.["requestBody"]?.["content"]?.["application/json"]?.["schema"]
  const ref = body?.["$ref"]
  const schema: Json | undefined =
    typeof ref === "string" ? spec["components"]?.["schemas"]?.[ref.split("/").pop()!] : body
  const model: Json | undefined = schema?.["properties"]?.["model"]
  if (model === undefined) return spec
  const cloud = models.cloud.map((m) => m.id)
  // The string branch names the models; an optional field's `null` branch stays (null is "absent").
  const named = (Array.isArray(model["anyOf"]) ? model["anyOf"] : [model]).find(
    (s: Json) => s["type"] === "string"
  )
  // A local model whose weights are not installed is listed by GET /v1/ask/models but refused here.
  if (named !== undefined)
    named["enum"] = [...models.local.filter((m) => m.available).map((m) => m.id), ...cloud]
  if (cloud.length > 0) {
    schema!["if"] = { properties: { model: { enum: cloud } }, required: ["model"] }
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
    schema!["then"] = { required: ["provider_key"], properties: { provider_key: { type: "string" } } }
  }
  return spec
}
