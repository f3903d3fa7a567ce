#!/usr/bin/env bash
# The Python tools only the tests use, in a virtualenv of their own made on the first `npm test`
# (its pretest step), not at install: mypy (the Python client's type checker, scripts/test-python.sh)
# Schemathesis (the API document against a live server, server/test/Contract.test.ts) and Mem0's own
# Python client (`mem0ai`, driven unchanged against the server's /mem0 API, server/test/mem0/), pinned.
# UMO_TEST_VENV, default .cache/test-venv. Idempotent: a no-op once they are there.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${UMO_TEST_VENV:-$root/.cache/test-venv}"
python="${PYTHON:-python3}"
mypy_version="1.18.2"
schemathesis_version="4.32.5"
mem0ai_version="2.2.1"

ready() {
  [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -m mypy --version 2>/dev/null | cut -d' ' -f2)" = "$mypy_version" ] &&
    [ "$("$venv/bin/st" --version 2>/dev/null)" = "st, version $schemathesis_version" ] &&
    [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mem0ai"))' 2>/dev/null)" = "$mem0ai_version" ]
}
if ready; then exit 0; fi

echo "test-tools: installing mypy $mypy_version, Schemathesis $schemathesis_version and mem0ai $mem0ai_version into $venv" >&2
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
# The machine's pip configuration may name index directories that do not exist: pip's warning
# about each is dropped.
PIP_NO_CACHE_DIR=1 "$venv/bin/pip" install --quiet --disable-pip-version-check \
  "mypy==$mypy_version" "schemathesis==$schemathesis_version" "mem0ai==$mem0ai_version" \
  2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
ready || { echo "test-tools: the tools did not install" >&2; exit 1; }
