"""tilepipe: a compiler for software-pipelined tile programs, on xDSL.

The public API (docs/api.md), imported on first use so that ``import tilepipe`` stays
cheap:

* :func:`compile_for` -- compile a module (text, xDSL or upstream ``mlir.ir``) for a
  target to a level; returns a :class:`Compilation`;
* :func:`run_pipeline` -- run a pass pipeline or a named flow (``cuda``,
  ``cuda:scheduled``, ``ascend``, ...) on a module;
* :func:`pass_pipeline` -- the same as an xDSL ``PassPipeline``;
* :func:`parse`, :func:`verify` -- parse and verify, with located diagnostics;
* :class:`CompileError` -- what all of them raise for bad input (``.diagnostics``);
* :func:`compile`, :func:`jit` -- TileLang-style Python kernels (``import
  tilepipe.language as T``, docs/language.md) compiled and run as callables.

Below them: :mod:`tilepipe.core.flows` (the named flows and levels),
:mod:`tilepipe.semantics` (interpreters, race detectors, ``testing`` helpers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_API = {
    "LEVELS": "tilepipe.drivers.api",
    "PRESETS": "tilepipe.drivers.api",
    "Compilation": "tilepipe.drivers.api",
    "compile_for": "tilepipe.drivers.api",
    "parse": "tilepipe.drivers.api",
    "pass_pipeline": "tilepipe.drivers.api",
    "run_pipeline": "tilepipe.drivers.api",
    "verify": "tilepipe.drivers.api",
    "CompileError": "tilepipe.drivers.compile",
    "compile": "tilepipe.language.jit",
    "jit": "tilepipe.language.jit",
    "PassConfigKey": "tilepipe.language.jit",
    "cdiv": "tilepipe.language.jit",
}

__all__ = ["__version__", *_API]

if TYPE_CHECKING:  # what static completion (IDEs, jedi, type checkers) sees
    from tilepipe.drivers.api import (
        LEVELS,
        PRESETS,
        Compilation,
        compile_for,
        parse,
        pass_pipeline,
        run_pipeline,
        verify,
    )
    from tilepipe.drivers.compile import CompileError
    from tilepipe.language.jit import PassConfigKey, cdiv, compile, jit


def __getattr__(name: str) -> Any:
    if name in _API:
        from importlib import import_module

        return getattr(import_module(_API[name]), name)
    raise AttributeError(f"module 'tilepipe' has no attribute '{name}'")


def __dir__() -> list[str]:
    # The API, the module's own dunders and the subpackages loaded so far; not the
    # names this file imports for itself (Any, TYPE_CHECKING, annotations).
    from types import ModuleType

    namespace = globals()
    own = {name for name in namespace if name.startswith("__")}
    packages = {name for name, value in namespace.items() if isinstance(value, ModuleType)}
    return sorted({*__all__, *own, *packages})
