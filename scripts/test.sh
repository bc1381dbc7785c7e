#!/usr/bin/env bash
# The test command: the lit suite, then pytest.  Expects the venv to be active
# (.ci/run and the README set it up).
set -euo pipefail
cd "$(dirname "$0")/.."
lit -v test/ "$@"
python -m pytest test/python
