#!/usr/bin/env bash
# The test command: the lit suite and pytest, run side by side over the machine's cores
# (each phase alone leaves a core idle while its last long tests finish; together they
# keep both busy).  lit's report is printed when both are done.  Expects the venv to be
# active (.ci/run and the README set it up).  Extra arguments go to lit (e.g. a test
# path).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
lit_log=$(mktemp)
trap 'rm -f "$lit_log"' EXIT
start=$SECONDS
lit -sv -j "$jobs" test/ "$@" >"$lit_log" 2>&1 &
lit_pid=$!
pytest_status=0
python -m pytest -n "$jobs" --dist worksteal test/python || pytest_status=$?
lit_status=0
wait "$lit_pid" || lit_status=$?
echo "== lit (ran beside pytest) =="
cat "$lit_log"
echo "== lit exit status $lit_status, pytest exit status $pytest_status, $((SECONDS - start)) s in all =="
[ "$lit_status" -eq 0 ] && [ "$pytest_status" -eq 0 ]
