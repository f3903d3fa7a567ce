#!/usr/bin/env bash
# The tools only the tests use, made on the first `npm test` (its pretest step), not at install, and
# pinned:
# - in a Python virtualenv (UMO_TEST_VENV, default .cache/test-venv): mypy (the Python client's type
#   checker, scripts/test-python.sh), Schemathesis (the API document against a live server,
#   server/test/Contract.test.ts), Mem0's own Python client (`mem0ai`, driven unchanged against
#   the server's /mem0 API, server/test/mem0/Mem0Client.test.ts), and the libraries the Python
#   integrations are tested with (integrations/langchain-python, integrations/langgraph);
# - in a directory of its own outside the workspace (UMO_TEST_JS_TOOLS, default
#   .cache/test-js-tools), from scripts/test-js-tools/package-lock.json: Mem0's own JS client (npm `mem0ai`, server/test/mem0/Mem0JsClient.test.ts).
#   Its peer dependencies (better-sqlite3 and the other stores and models of its `mem0ai/oss` part,
#   which `MemoryClient` does not use) are left out, and no install script runs.
# Idempotent: a no-op once they are there.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${UMO_TEST_VENV:-$root/.cache/test-venv}"
js_tools="${UMO_TEST_JS_TOOLS:-$root/.cache/test-js-tools}"
python="${PYTHON:-python3}"
# Python packages, exact: mypy, Schemathesis, Mem0's client, and for the LangChain and LangGraph
# integrations' tests (scripts/test-python.sh) langchain-core, langgraph, LangMem and Hypothesis, and
# the pytest plugins LangGraph's own store suites use (integrations/langgraph/peer_tests):
# pytest-asyncio (langchain-tests brings it too) and pytest-mock.
python_pins=(mypy==1.18.2 schemathesis==4.32.5 mem0ai==2.2.1 langchain-core==1.8.1 langchain-tests==1.1.9 langgraph==1.2.22 langmem==0.0.30 hypothesis==6.170.15 pytest-asyncio==1.5.0 pytest-mock==3.17.0)
mem0ai_js_version="3.3.1"

python_ready() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" - "${python_pins[@]}" 2>/dev/null <<'PY'
import importlib.metadata as metadata, sys
sys.exit(any(metadata.version(name) != version for name, version in (pin.split("==") for pin in sys.argv[1:])))
PY
}

# The pinned version is there and its `MemoryClient` imports with nothing else.
js_ready() {
  cmp -s "$root/scripts/test-js-tools/package-lock.json" "$js_tools/package-lock.json" &&
    [ -f "$js_tools/node_modules/mem0ai/package.json" ] &&
    MEM0_TELEMETRY=false bash "$root/scripts/with-node.sh" node --input-type=module -e '
      import { createRequire } from "node:module"
      const dir = process.argv[1] + "/node_modules/mem0ai/"
      const pkg = createRequire(dir)("./package.json")
      if (pkg.version !== process.argv[2]) process.exit(1)
      const { MemoryClient } = await import(dir + pkg.exports["."].import)
      if (typeof MemoryClient !== "function") process.exit(1)
    ' "$js_tools" "$mem0ai_js_version" 2>/dev/null
}

if ! python_ready; then
  echo "test-tools: installing ${python_pins[*]} into $venv" >&2
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  # The machine's pip configuration may name index directories that do not exist: pip's warning
  # about each is dropped.
  PIP_NO_CACHE_DIR=1 "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "${python_pins[@]}" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  python_ready || { echo "test-tools: the Python tools did not install" >&2; exit 1; }
fi

if ! js_ready; then
  echo "test-tools: installing the npm package mem0ai $mem0ai_js_version into $js_tools" >&2
  mkdir -p "$js_tools"
  cp "$root/scripts/test-js-tools/package.json" "$root/scripts/test-js-tools/package-lock.json" "$js_tools/"
  bash "$root/scripts/with-node.sh" npm ci --prefix "$js_tools" --omit=peer --legacy-peer-deps \
    --ignore-scripts --no-audit --no-fund --loglevel=error
  js_ready || { echo "test-tools: the npm package mem0ai did not install" >&2; exit 1; }
fi
