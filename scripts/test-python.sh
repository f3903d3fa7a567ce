#!/usr/bin/env bash
# The Python packages: a strict type check with mypy and their unittest suites, each starting the
# real server (clients/python/tests/live_server.py). The client needs only the standard library, so
# its suite runs on the system's python3 with nothing installed; the LangChain and LangGraph
# integrations run in the test tools' virtualenv (scripts/test-tools.sh makes it, with their pinned
# libraries), from the checkout's folders. Run through scripts/with-node.sh (`npm run
# test:python`), so the server gets Node >= 22.19.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${UMO_TEST_VENV:-$root/.cache/test-venv}"
cd "$root"
bash scripts/test-tools.sh
integrations=(integrations/langchain-python integrations/langgraph)
paths="clients/python:clients/python/tests:$(IFS=:; echo "${integrations[*]}")"
"$venv/bin/python" -m mypy --strict --cache-dir "$root/.cache/mypy" clients/python/umo_client clients/python/tests
MYPYPATH="$paths" "$venv/bin/python" -m mypy --strict --cache-dir "$root/.cache/mypy" \
  integrations/langchain-python/umo_langchain integrations/langchain-python/tests \
  integrations/langgraph/umo_langgraph integrations/langgraph/tests integrations/langchain-python/standard
python3 -m unittest discover -s clients/python/tests -t clients/python
for integration in "${integrations[@]}"; do
  # Each suite's folder is its own top level: the client's tests are the package `tests` already.
  PYTHONPATH="$paths" "$venv/bin/python" -m unittest discover -s "$integration/tests" -t "$integration/tests"
done
# LangChain's own standard retriever tests (langchain-tests, pytest), with only the fixture ours.
PYTHONPATH="$paths" "$venv/bin/python" -m pytest integrations/langchain-python/standard -q -p no:cacheprovider \
  -o asyncio_mode=auto -o asyncio_default_fixture_loop_scope=function
