import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { it } from "@effect/vitest"
import { Embedder, EmbedderError } from "@umo/core"
import { TransformersEmbedder } from "@umo/plugins"
import { Effect } from "effect"
import { afterAll, describe, expect, it as test } from "vitest"
import { behavesLikeASentenceEmbedder } from "./shared.js"

// `npm test` runs scripts/fetch-models.sh first, so the real int8 ONNX graph is here; the fp32 one
// is there after `npm run fetch-models -- --fp32` (CI fetches it), and its test is skipped without.
const modelsDir = process.env["UMO_MODELS_DIR"] ?? "./models"
const graph = (precision: TransformersEmbedder.Precision) =>
  join(
    modelsDir,
    TransformersEmbedder.defaultModel,
    "onnx",
    precision === "fp32" ? "model.onnx" : "model_int8.onnx"
  )

describe("TransformersEmbedder", () => {
  for (const precision of TransformersEmbedder.precisions) {
    const present = existsSync(graph(precision))
    if (!present)
      console.warn(
        `TransformersEmbedder: the ${precision} test is SKIPPED: ${graph(precision)} is not there; ${TransformersEmbedder.fetchHint(TransformersEmbedder.defaultModel, precision)}`
      )
    describe.skipIf(!present)(precision, () => {
      it.layer(TransformersEmbedder.layer({ modelsDir, batchSize: 2, precision }))((it) => {
        it.effect(`embeds all-mpnet-base-v2 from the local ${precision} ONNX graph`, () =>
          Effect.gen(function* () {
            yield* behavesLikeASentenceEmbedder
            const embedder = yield* Embedder
            expect(embedder.model.id).toBe(
              TransformersEmbedder.pinnedId(TransformersEmbedder.defaultModel, precision)
            )
          })
        )
      })
    })
  }

  test("names the fetch-models flag that prepares a missing graph", () => {
    const hint = TransformersEmbedder.fetchHint
    expect(hint(TransformersEmbedder.defaultModel, "int8")).toBe("run `npm run fetch-models`")
    expect(hint(TransformersEmbedder.defaultModel, "fp32")).toBe("run `npm run fetch-models -- --fp32`")
    expect(hint("sentence-transformers/all-MiniLM-L6-v2", "int8")).toBe(
      "run `npm run fetch-models -- --minilm`"
    )
    expect(hint("sentence-transformers/all-MiniLM-L6-v2", "fp32")).toBe(
      "run `npm run fetch-models -- --minilm --fp32`"
    )
    expect(hint("BAAI/bge-small-en-v1.5", "int8")).toContain("put BAAI/bge-small-en-v1.5's ONNX export there")
  })

  it.effect("says how to get a model that is not there", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(TransformersEmbedder.make({ modelsDir: "/nonexistent" }))
      expect(error).toBeInstanceOf(EmbedderError)
      expect(error.reason).toBe("ModelUnavailable")
      expect(error.message).toContain("run `npm run fetch-models`")
    })
  )

  it.effect("refuses a model it does not know how to pool", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(TransformersEmbedder.make({ modelsDir, model: "acme/mystery" }))
      expect(error.detail).toContain("unknown model")
    })
  )
})

describe("TransformersEmbedder with a model that cannot load", () => {
  // The tokenizer and config of the real model beside a graph that is not ONNX.
  const broken = mkdtempSync(join(tmpdir(), "umo-broken-model-"))
  const real = join(modelsDir, TransformersEmbedder.defaultModel)
  const copy = join(broken, TransformersEmbedder.defaultModel)
  cpSync(real, copy, { recursive: true, filter: (path) => !path.endsWith(".onnx") })
  writeFileSync(join(copy, "onnx", "model_int8.onnx"), "not an ONNX graph")
  afterAll(() => rmSync(broken, { recursive: true, force: true }))

  it.layer(TransformersEmbedder.layer({ modelsDir: broken, precision: "int8" }))((it) => {
    it.effect("fails each call as an unavailable model, and keeps failing", () =>
      Effect.gen(function* () {
        const embedder = yield* Embedder
        for (const text of ["first call", "second call"]) {
          const error = yield* Effect.flip(embedder.embed([text]))
          expect(error.reason).toBe("ModelUnavailable")
          expect(error.model).toBe(TransformersEmbedder.pinnedId(TransformersEmbedder.defaultModel, "int8"))
        }
      })
    )
  })
})
