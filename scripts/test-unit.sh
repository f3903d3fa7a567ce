#!/usr/bin/env bash
# The Vitest suite (`npm run test:unit`). The contract test — Schemathesis against a live server,
# whose fuzzer and server together use about one core for most of its run — runs in a Vitest of
# its own beside the other files, and those run on two workers (Vitest's default on a 2-core
# machine is one): with the three side by side the cores stay busy until the end, where one worker
# after the contract test left one idle for most of the run. The contract test's output is printed
# once it ends. With arguments (files, -t, …) it is plain `vitest run` with them. Run through
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
vitest run --exclude "$contract" --maxWorkers 2 || status=$?

contract_status=0
wait "$contract_pid" || contract_status=$?
contract_pid=
echo "--- $contract (run beside the other files) ---"
cat "$log"
[ "$contract_status" -eq 0 ] || echo "test-unit: $contract failed (exit $contract_status)" >&2
[ "$status" -eq 0 ] || echo "test-unit: the other test files failed (exit $status)" >&2
[ "$status" -eq 0 ] && [ "$contract_status" -eq 0 ]
