import { generateKeyPairSync } from "node:crypto"
import { Embedder, makeEmbedder, makeUmoId, Pipeline, type Umo } from "@umo/core"
import { defaultPlugins, SigningKey, StorageStack } from "@umo/plugins"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"

const dimensions = 16

/** Words hashed into 16 buckets: a deterministic embedder, so storage tests need no model. */
const bagOfWords = (text: string): Array<number> => {
  const v: Array<number> = Array.from({ length: dimensions }, () => 0)
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    let h = 2166136261
    for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619)
    v[(h >>> 0) % dimensions]! += 1
  }
  if (!v.some((x) => x !== 0)) v[0] = 1
  return v
}

export const TestEmbedder = Layer.succeed(Embedder)(
  makeEmbedder({
    model: { id: "test-bag-of-words", dimensions, maxChunkChars: 200 },
    embedBatch: (texts) => Effect.succeed(texts.map(bagOfWords))
  })
)

/**
 * One Ed25519 key for a test run (the production key lives in the data directory); worker
 * processes started by a test get the same key through the environment.
 */
export const testKeyPem =
  process.env["UMO_TEST_SIGNING_KEY"] ??
  generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString()

/** The whole storage stack over a database layer; a small checkpoint interval exercises checkpoints. */
export const storageLayer = <E>(
  database: Layer.Layer<SqlClient.SqlClient, E>,
  options: { checkpointInterval?: number } = {}
) =>
  StorageStack.layer({
    database,
    signingKey: SigningKey.layer({ dataDir: "/nonexistent", pem: testKeyPem }),
    embedder: TestEmbedder,
    ledger: { checkpointInterval: options.checkpointInterval ?? 4 }
  })

export const pipeline = Pipeline.make(defaultPlugins())

export const texts = [
  "Marie Curie was born in Warsaw and worked in Paris.",
  "Caroline went to the LGBTQ support group yesterday and felt accepted.",
  "Melanie painted a lake at sunrise last summer with her kids.",
  "The committee approved the budget of $2 million on Tuesday.",
  "Tesla recalled 2 million cars in December 2023 after a software fault.",
  "Jane Austen wrote Pride and Prejudice in 1813.",
  "Our team shipped version 2.0 on 3 April 2024 and celebrated in Berlin.",
  `${"A long report about gardens, tomatoes and water. ".repeat(12)}It ends here.`
]

/** Captures texts once through the real pipeline; tests store copies under fresh ids. */
export const capturedPool = Effect.forEach(texts, (content, i) =>
  pipeline.process({ content, source: i % 2 === 0 ? "notes" : "chat" })
).pipe(Effect.provide(TestEmbedder))

let counter = 0
/** A copy of a captured UMO with a new, later umo_id and created_at, as if captured again. */
export const recapture = (umo: Umo): Umo => {
  counter += 1
  const millis = Date.UTC(2026, 0, 1) + counter * 1000
  return { ...umo, umo_id: makeUmoId(millis), created_at: new Date(millis).toISOString() }
}
