#!/usr/bin/env bash
# Creates .venv (if missing) and installs tilepipe with its pinned dependencies from the
# package registries.  Safe to run repeatedly: the install is editable, so it is redone
# only when pyproject.toml (the pins, the entry points) or the Python changed.
#
# The install goes through uv (itself pinned, from PyPI): it resolves and unpacks the
# 1.5 GB of wheels in seconds where pip takes half a minute.  Where uv cannot be
# installed, pip does the same install.  The ray extra (tilepipe tune --executor ray)
# adds about 3 s to a fresh install and lets its test run here and in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.8
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
. .venv/bin/activate
stamp=.venv/.tilepipe-installed
want=$( (cat pyproject.toml; python --version) | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  if pip install -q "uv==$UV_VERSION" 2>/dev/null && [ -x .venv/bin/uv ]; then
    .venv/bin/uv pip install -q --python .venv/bin/python -e ".[test,ptx,ray]"
  else
    pip install -q -e ".[test,ptx,ray]"
  fi
  echo "$want" > "$stamp"
fi
