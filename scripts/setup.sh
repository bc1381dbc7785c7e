#!/usr/bin/env bash
# Creates .venv (if missing) and installs tilepipe with its pinned dependencies from the
# package registries.  Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
pip install -q -e ".[test,ptx]"
