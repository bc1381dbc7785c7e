"""The tuning cache: one entry per configuration ``tilepipe tune`` evaluated, so that
tuning the same problem again (or with an overlapping list of depths or sizes)
answers from it without compiling (docs/schedule_sim.md, "The tuning cache").

An entry's key is a SHA-256 of everything its outcome depends on: the kernel's text,
its tile-size values and ``num_stages``, the index arguments and argument shapes, the
target record (its latencies after calibration included), whether ptxas checks the
registers, and tilepipe itself -- its version and a digest of its sources, so that an
edited compiler never answers from what an older one computed.  The entry is the
configuration's outcome (JSON); the machine model is applied afresh on every run.

The directory: ``$TILEPIPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilepipe``, else
``~/.cache/tilepipe``; the entries lie under ``tune/`` in it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path

CACHE_FORMAT = 1
# The folders whose Python sources make up the compiler (the digest of the key).
_SOURCE_PACKAGES = ("tilepipe", "tilepipe.dialects", "tilepipe.passes", "tilepipe.lowering")


def cache_dir() -> Path:
    """tilepipe's cache directory (the environment decides, see the module doc)."""
    if explicit := os.environ.get("TILEPIPE_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tilepipe"


@cache
def compiler_identity() -> str:
    """tilepipe's version and a digest of its Python sources (about 0.1 s, once)."""
    import importlib
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("tilepipe")
    except PackageNotFoundError:
        release = "unknown"
    digest = hashlib.sha256()
    for package in _SOURCE_PACKAGES:
        folder = Path(importlib.import_module(package).__file__).parent
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return f"{release}+{digest.hexdigest()[:16]}"


def entry_key(parts: dict) -> str:
    """The key of a configuration whose outcome depends on ``parts`` (JSON-able)."""
    text = json.dumps({"format": CACHE_FORMAT, "tilepipe": compiler_identity(), **parts},
                      sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


class TuneCache:
    """Configuration outcomes by key, one JSON file each under ``folder``."""

    def __init__(self, folder: Path | None = None):
        self.folder = Path(folder) if folder is not None else cache_dir() / "tune"

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The stored entry, or None (missing, unreadable or corrupt: a miss)."""
        try:
            entry = json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict) -> None:
        """Store an entry (written aside and renamed, so that a reader never sees half
        of one); a cache that cannot be written is skipped silently."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as out:
                json.dump(entry, out)
            os.replace(out.name, path)
        except OSError:
            pass
