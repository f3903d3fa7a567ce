#!/usr/bin/env bash
# Runs a command with a Node >= 22.19 first on PATH: the one on PATH if it is new enough, else the
# Node 24 scripts/ensure-node.sh fetches into .cache/node (once). npm_node_execpath names the same
# node, for the programs that start node themselves (the Python client's tests, npm itself). The
# npm scripts that need the newer Node (start, umo, tests, benches…) run through it:
#   bash scripts/with-node.sh tsx server/src/main.ts
set -euo pipefail
bin="$(bash "$(dirname "${BASH_SOURCE[0]}")/ensure-node.sh")"
export PATH="$bin:$PATH"
export npm_node_execpath="$bin/node"
exec "$@"
