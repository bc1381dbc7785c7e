#!/usr/bin/env bash
# Creates .venv (if missing) and installs tilepipe with its pinned dependencies from the
# package registries.  Safe to run repeatedly: the install is editable, so it is redone
# only when pyproject.toml (the pins, the entry points) or the Python changed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
stamp=.venv/.tilepipe-installed
want=$( (cat pyproject.toml; python --version) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  pip install -q -e ".[test,ptx]"
  echo "$want" > "$stamp"
fi
