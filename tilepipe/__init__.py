"""tilepipe: a compiler for software-pipelined tile programs, on xDSL.

The public API (docs/api.md) is imported on first use, so ``import tilepipe`` stays
cheap: :func:`parse`, :func:`verify`, :func:`pass_pipeline`, :func:`run_pipeline`,
:func:`compile_for` and :class:`Compilation` (from :mod:`tilepipe.drivers.api`), and
:class:`CompileError`, the exception all of them raise for bad input.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_API = {
    "Compilation": "tilepipe.drivers.api",
    "compile_for": "tilepipe.drivers.api",
    "parse": "tilepipe.drivers.api",
    "pass_pipeline": "tilepipe.drivers.api",
    "run_pipeline": "tilepipe.drivers.api",
    "verify": "tilepipe.drivers.api",
    "CompileError": "tilepipe.drivers.compile",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name in _API:
        from importlib import import_module

        return getattr(import_module(_API[name]), name)
    raise AttributeError(f"module 'tilepipe' has no attribute '{name}'")
