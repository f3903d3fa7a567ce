#!/usr/bin/env bash
# The Python client: a strict type check with mypy (from the private virtualenv that
# scripts/fetch-models.sh prepares) and its unittest suite, which starts the real server, run by
# the system's python3 with nothing installed — the client needs only the standard library.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${UMO_MODELS_VENV:-$root/.cache/models-venv}"
cd "$root"
if ! "$venv/bin/python" -c "import mypy" 2>/dev/null; then
  echo "test-python: mypy is not in $venv; run \`npm run fetch-models\` first" >&2
  exit 1
fi
"$venv/bin/python" -m mypy --strict clients/python/umo_client clients/python/tests
python3 -m unittest discover -s clients/python/tests -t clients/python
