#!/usr/bin/env bash
# The Python client: a strict type check with mypy (from the test tools' virtualenv, which
# scripts/test-tools.sh makes) and its unittest suite, which starts the real server, run by the
# system's python3 with nothing installed — the client needs only the standard library. Run
# through scripts/with-node.sh (`npm run test:python`), so the server gets Node >= 22.19.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${UMO_TEST_VENV:-$root/.cache/test-venv}"
cd "$root"
bash scripts/test-tools.sh
"$venv/bin/python" -m mypy --strict --cache-dir "$root/.cache/mypy" clients/python/umo_client clients/python/tests
python3 -m unittest discover -s clients/python/tests -t clients/python
