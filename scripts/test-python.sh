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
# LangGraph's vendored store suites keep upstream's test bodies as they are (not typed for --strict):
# of that folder, the fixture that is ours.
MYPYPATH="$paths:integrations/langgraph/peer_tests" "$venv/bin/python" -m mypy --strict --cache-dir "$root/.cache/mypy" \
  integrations/langchain-python/umo_langchain integrations/langchain-python/tests \
  integrations/langgraph/umo_langgraph integrations/langgraph/tests integrations/langchain-python/standard \
  integrations/langgraph/peer_tests/conftest.py integrations/langgraph/peer_tests/umo_peer.py
python3 -m unittest discover -s clients/python/tests -t clients/python
for integration in "${integrations[@]}"; do
  # Each suite's folder is its own top level: the client's tests are the package `tests` already.
  PYTHONPATH="$paths" "$venv/bin/python" -m unittest discover -s "$integration/tests" -t "$integration/tests"
done
# LangChain's own standard retriever tests (langchain-tests, pytest), with only the fixture ours.
PYTHONPATH="$paths" "$venv/bin/python" -m pytest integrations/langchain-python/standard -q -p no:cacheprovider \
  -o asyncio_mode=auto -o asyncio_default_fixture_loop_scope=function
# LangGraph's own BaseStore suites (its in-memory, SQLite and PostgreSQL stores' tests, vendored in
# integrations/langgraph/peer_tests, MIT), run against UMOStore with only the store construction ours.
# UMO_PEER_TESTS_LONG=1 adds the two PostgreSQL tests of thousands of concurrent operations (long).
PYTHONPATH="$paths" "$venv/bin/python" -m pytest integrations/langgraph/peer_tests -q -p no:cacheprovider \
  -o asyncio_mode=auto -o asyncio_default_fixture_loop_scope=function
