#!/usr/bin/env bash
# The test command: the lit suite, then pytest, each spread over the machine's cores
# (pytest's workers steal work, so that neither idles while the other finishes the last
# long tests).  Expects the venv to be active (.ci/run and the README set it up).
# Extra arguments go to lit (e.g. a test path).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
lit -sv -j "$jobs" test/ "$@"
python -m pytest -n "$jobs" --dist worksteal test/python
