#!/usr/bin/env bash
# The Vitest suite (`npm run test:unit`). Vitest runs one file at a time on a 2-core machine (its
# default is one worker fewer than the cores), so the contract test — Schemathesis against a live
# server, 8 to 12 minutes of which the fuzzer and the server together use about one core — runs
# beside the other files in a Vitest of its own instead of after them; its output is printed once
# it ends. With arguments (files, -t, …) it is plain `vitest run` with them. Run through
# scripts/with-node.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[ "$#" -eq 0 ] || exec vitest run "$@"

contract="server/test/Contract.test.ts"
log="$(mktemp "${TMPDIR:-/tmp}/umo-contract.XXXXXX")"
trap 'rm -f "$log"; [ -z "${contract_pid:-}" ] || kill "$contract_pid" 2>/dev/null || true' EXIT
vitest run "$contract" >"$log" 2>&1 &
contract_pid=$!

status=0
vitest run --exclude "$contract" || status=$?

contract_status=0
wait "$contract_pid" || contract_status=$?
contract_pid=
echo "--- $contract (run beside the other files) ---"
cat "$log"
[ "$contract_status" -eq 0 ] || echo "test-unit: $contract failed (exit $contract_status)" >&2
[ "$status" -eq 0 ] || echo "test-unit: the other test files failed (exit $status)" >&2
[ "$status" -eq 0 ] && [ "$contract_status" -eq 0 ]
