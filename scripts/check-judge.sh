#!/usr/bin/env bash
# Checks that the update judge shipped in plugins/models/update-judge is the model its training
# recorded (judge.json's SHA-256); the service refuses to run any other. A mismatch fails the
# install with what to do.
set -euo pipefail
dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/plugins/models/update-judge"
recorded="$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$dir/judge.json" | head -1)"
actual="$(sha256sum "$dir/onnx/model_int8.onnx" | cut -d' ' -f1)"
if [ "$recorded" != "$actual" ]; then
  echo "check-judge: $dir/onnx/model_int8.onnx has SHA-256 $actual, not the $recorded judge.json records;" >&2
  echo "check-judge: restore it (git checkout plugins/models) or retrain it (npm run train:judge)" >&2
  exit 1
fi
echo "check-judge: the update judge is the recorded model (SHA-256 ${actual:0:12}…)" >&2
