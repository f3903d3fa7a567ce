#!/usr/bin/env bash
# Installs llama.cpp's runtime for the local generative answerer (`npm run fetch-models -- --llm`
# runs this): node-llama-cpp and its prebuilt CPU build for this platform only, into a prefix of
# its own (UMO_LLM_RUNTIME, default .cache/llm), which plugins/src/answer/LocalLanguageModel.ts
# loads from. Not a dependency of the workspace: `npm install` would otherwise fetch its builds for
# every platform and GPU (669 MB) whether the answerer is used or not. The CUDA build is added only
# where `nvidia-smi` finds a GPU. Nothing is compiled or downloaded at run time. Idempotent.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${UMO_LLM_RUNTIME:-$root/.cache/llm}"
version="3.22.1"
node_bin="$(bash "$root/scripts/ensure-node.sh")"
node="$node_bin/node"

# @node-llama-cpp/<platform>-<arch>, as node-llama-cpp names its prebuilt packages.
platform="$("$node" -p '({ linux: "linux", darwin: "mac", win32: "win" })[process.platform] ?? process.platform')"
arch="$("$node" -p '({ arm: "armv7l" })[process.arch] ?? process.arch')"
packages=("node-llama-cpp@$version")
case "$platform-$arch" in
  mac-arm64) packages+=("@node-llama-cpp/mac-arm64-metal@$version") ;;
  *) packages+=("@node-llama-cpp/$platform-$arch@$version") ;;
esac
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  case "$platform-$arch" in
    linux-x64 | win-x64) packages+=("@node-llama-cpp/$platform-$arch-cuda@$version") ;;
  esac
fi

installed() {
  local spec name
  for spec in "${packages[@]}"; do
    name="${spec%@*}"
    grep -q "\"version\": \"$version\"" "$prefix/node_modules/$name/package.json" 2>/dev/null || return 1
  done
}

if installed; then
  echo "llm-runtime: node-llama-cpp $version already in $prefix" >&2
  exit 0
fi

echo "llm-runtime: installing ${packages[*]} into $prefix" >&2
mkdir -p "$prefix"
# --omit=optional: node-llama-cpp lists every platform's and GPU's build as an optional
# dependency; only the ones named above are installed. --ignore-scripts: its postinstall would
# look for a build to make, and the prebuilt one is all that is used.
PATH="$node_bin:$PATH" npm install --prefix "$prefix" --omit=optional --ignore-scripts --no-audit --no-fund \
  --save-exact --loglevel=error "${packages[@]}" >&2

# The prebuilt binary loads, offline, on the CPU: what LocalLanguageModel.ts asks of it. (From a
# file: node-llama-cpp tests its binary in a fork of the importing process, which `node -e` breaks.)
cat >"$prefix/check.mjs" <<'CHECK'
const { getLlama, LlamaLogLevel } = await import("node-llama-cpp")
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error })
console.error(`llm-runtime: llama.cpp loads (${llama.buildType} build, on the CPU)`)
await llama.dispose()
CHECK
"$node" "$prefix/check.mjs"
