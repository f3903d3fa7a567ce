#!/usr/bin/env bash
# What `npm install` (and `npm ci`) does after installing the packages — its prepare step — so
# that `npm start` works next, whatever Node the machine has:
#   1. a Node >= 22.19: the one on PATH, else Node 24 fetched into .cache/node (ensure-node.sh);
#   2. onnxruntime-node's builds for other platforms deleted (prune-platforms.mjs);
#   3. the workspaces the server runs built, on that Node (the integrations are built when packed:
#      `npm run build` builds them all);
#   4. at the same time, the default models prepared (fetch-models.sh: the default embedder and the
#      reranker; the opt-in update judge is `npm run fetch-models -- --judge`). Downloading and
#      rebuilding them waits on the network and on Python more than on the compiler, so the two
#      overlap; a failure there warns, and `npm start` then says what to do;
#   5. the embedded database created in UMO_DATA_DIR (default ./data) and migrated, when it is not
#      there yet, while the models are still being prepared: PGlite's initdb takes seconds, so the
#      first `npm start` only opens it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
started=$(date +%s)
step() { echo "prepare: [$(($(date +%s) - started))s] $*" >&2; }

step "Node >= 22.19"
bin="$(bash scripts/ensure-node.sh)"
"$bin/node" scripts/prune-platforms.mjs
step "the default models, while the workspaces build"
models_log="$(mktemp)"
log="$(mktemp)"
trap 'rm -f "$log" "$models_log"' EXIT
bash scripts/fetch-models.sh --optional >"$models_log" 2>&1 &
models=$!
step "building the workspaces the server runs with Node $("$bin/node" --version)"
server_workspaces=(@umo/core @umo/plugins @umo/client @umo/memory @umo/mcp @umo/server @umo/console)
bash scripts/with-node.sh npm run --silent build "${server_workspaces[@]/#/--workspace=}" >"$log" 2>&1 || {
  cat "$log" >&2
  kill "$models" 2>/dev/null || true
  exit 1
}
# The database needs the build, not the models: it is made while they are still being prepared.
step "the embedded database in ${UMO_DATA_DIR:-./data}"
if [ -z "${DATABASE_URL:-}" ]; then
  # Any of the operator's commands opens (creating and migrating) the database; this one only reads.
  bash scripts/with-node.sh node server/dist/cli.js keys list >/dev/null ||
    echo "prepare: could not create the database (see above); \`npm start\` will try again" >&2
fi
wait "$models" || true
cat "$models_log" >&2
step "models ready"
step "done: \`npm start\` serves on http://127.0.0.1:8787"
