#!/usr/bin/env bash
# `npm start`: the reference server from its built JavaScript (server/dist, which `npm install`
# builds), on the Node with-node.sh puts first on PATH. Compiling TypeScript at run time (tsx)
# cost the process ~570 MB resident and brought four esbuild processes beside it; `npm run dev`
# still runs the sources, restarting on each change. A TypeScript configuration (`umo.config.ts`,
# or the one UMO_CONFIG names) is the one case that needs a loader: tsx is registered for it alone.
set -euo pipefail
main=server/dist/main.js
if [ ! -f "$main" ]; then
  echo "start: $main is missing: run \`npm run build\` (npm install does it)" >&2
  exit 1
fi
# glibc keeps freed memory for reuse unless a block was large enough to be mapped on its own; by
# default that bound grows to 32 MB as a process frees large blocks, so onnxruntime's buffers, a
# model unloaded when idle and a search index evicted stay resident. A fixed 128 KB returns them:
# the embedder's thread held 324 MB loaded (413 without) and 147 MB once closed (266 without).
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
# V8 grows each thread's young generation while allocation runs fast, as in a bulk load, and keeps
# it resident after. 8 MB semi-spaces (and worker threads capped alike where they are made:
# workerScript): 10,000 memories through the API left the server 1,389 MB right after the load
# against 1,856, and 907 restarted against 1,116, in the same load time (bench/README.md).
# A size of your own in NODE_OPTIONS is kept (the command line's would win over it).
young=(--max-semi-space-size=8)
case " ${NODE_OPTIONS:-} " in
*--max-semi-space-size*) young=() ;;
esac
config="${UMO_CONFIG:-umo.config.ts}"
case "$config" in
*.ts | *.mts | *.cts) [ -f "$config" ] && exec node "${young[@]}" --import tsx "$main" ;;
esac
exec node "${young[@]}" "$main"
