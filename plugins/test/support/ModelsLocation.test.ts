import { mkdtempSync, rmSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { EmbedderChoice, TransformersEmbedder } from "@umo/plugins"
import { ConfigProvider, Effect, Exit } from "effect"
import { afterAll, describe, expect, test } from "vitest"
import {
  checkoutRoot,
  fetchModelsCommand,
  modelsDir,
  userModelsDir
} from "../../src/support/ModelsLocation.js"

const empty = mkdtempSync(join(tmpdir(), "umo-no-models-"))
afterAll(() => rmSync(empty, { recursive: true, force: true }))

describe("the models directory", () => {
  test("is UMO_MODELS_DIR when set, whatever the working directory", () => {
    expect(modelsDir({ UMO_MODELS_DIR: "/srv/models" })).toBe("/srv/models")
  })

  test("is found from the package, not the working directory: the checkout's models/ here", () => {
    expect(checkoutRoot).toBeDefined()
    const cwd = process.cwd()
    process.chdir(tmpdir())
    try {
      expect(modelsDir({})).toBe(join(checkoutRoot!, "models"))
    } finally {
      process.chdir(cwd)
    }
  })

  test("the per-user cache honours XDG_CACHE_HOME, else ~/.cache", () => {
    expect(userModelsDir({ XDG_CACHE_HOME: "/var/cache/u" })).toBe("/var/cache/u/umo/models")
    expect(userModelsDir({})).toBe(join(homedir(), ".cache", "umo", "models"))
  })

  test("in a checkout, the command that fills it is npm run fetch-models, with its flags", () => {
    expect(fetchModelsCommand()).toBe("npm run fetch-models")
    expect(fetchModelsCommand(["--fp32"])).toBe("npm run fetch-models -- --fp32")
  })
})

describe("EmbedderChoice.checkInstalled", () => {
  const checked = (env: Record<string, string>) =>
    Effect.runPromiseExit(
      EmbedderChoice.checkInstalled.pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
      )
    )

  test("refuses a missing graph, naming the file and the exact command", async () => {
    const exit = await checked({ UMO_MODELS_DIR: empty })
    expect(Exit.isFailure(exit)).toBe(true)
    const message = String(Exit.isFailure(exit) ? JSON.stringify(exit.cause) : "")
    expect(message).toContain(join(empty, TransformersEmbedder.defaultModel, "onnx", "model_int8.onnx"))
    expect(message).toContain("run `npm run fetch-models`")
    const fp32 = await checked({ UMO_MODELS_DIR: empty, UMO_EMBEDDER_PRECISION: "fp32" })
    expect(JSON.stringify(Exit.isFailure(fp32) ? fp32.cause : "")).toContain("npm run fetch-models -- --fp32")
  })

  test("passes the embedder that needs no files, and installed models", async () => {
    expect(Exit.isSuccess(await checked({ UMO_MODELS_DIR: empty, UMO_EMBEDDER: "use-lite" }))).toBe(true)
    expect(Exit.isSuccess(await checked({ UMO_MODELS_DIR: join(checkoutRoot!, "models") }))).toBe(true)
  })
})
