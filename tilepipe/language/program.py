"""``@T.prim_func``: a kernel function, its source and what it closes over.

Nothing is built at decoration: the tile IR depends on the target (its
``tile.target``, the on-chip space of temporaries), so :meth:`PrimFunc.build`
makes it per target, and :meth:`PrimFunc.cache_key` says everything the IR
depends on -- the source text, the values of the closure and of the globals the
body names, the parameter shapes and dtypes -- so that a compile cache never
hands back a kernel built for another shape.
"""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from tilepipe.language.errors import PySource, read_function
from tilepipe.language.frontend import build_kernel


class PrimFunc:
    """A ``@T.prim_func`` kernel (TileLang's PrimFunc)."""

    eager: Any = None
    """An eager ``@tilepipe.jit`` kernel's binding (:mod:`.eager`); None here."""

    def __init__(self, fn: Callable[..., Any], outer: dict[str, Any] | None = None):
        self.fn = fn
        self.outer = dict(outer or {})
        """The defining scope's locals (as TVMScript captures them): under ``from
        __future__ import annotations`` a factory's parameter used only in the
        kernel's annotations is not a closure cell."""
        self.name = fn.__name__
        self.source_text, self.source, self.tree = self.parse(fn)
        self._modules: dict[str, ModuleOp] = {}
        self.param_specs: dict[str, Any] = {}
        """Each parameter's evaluated ``T.Tensor`` (filled by the first build)."""

    @staticmethod
    def parse(fn: Callable[..., Any]) -> tuple[str, PySource, ast.FunctionDef]:
        """``fn``'s source text, where it lies, and its ``def`` as an AST."""
        return read_function(fn)

    # -- what the body can name

    def namespace(self) -> dict[str, Any]:
        """Closure cells over globals over builtins (Python's own lookup order)."""
        names: dict[str, Any] = dict(vars(__import__("builtins")))
        names.update(self.fn.__globals__)
        names.update(self.outer)
        code = self.fn.__code__
        for name, cell in zip(code.co_freevars, self.fn.__closure__ or ()):
            try:
                names[name] = cell.cell_contents
            except ValueError:  # an unbound cell: a name defined later in the outer function
                pass
        return names

    def cache_key(self) -> tuple:
        """The source, and the value of every free name and annotation it uses."""
        names = self.namespace()
        used = sorted({n.id for n in ast.walk(self.tree) if isinstance(n, ast.Name)})
        values = tuple((n, _stable(names[n])) for n in used if n in names)
        annotations = tuple(
            (k, _stable(v)) for k, v in getattr(self.fn, "__annotations__", {}).items()
        )
        return (self.source.file, self.source_text, values, annotations)

    def build(self, target: str = "sm_80") -> ModuleOp:
        """The tile-level module of this kernel for ``target`` (verified; built once
        per target)."""
        if target not in self._modules:
            self._modules[target] = build_kernel(self, target)
        return self._modules[target]

    def mlir(self, target: str = "sm_80") -> str:
        return str(self.build(target))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"@T.prim_func {self.name} is a kernel definition; compile it with "
            "tilepipe.compile(func) (or decorate its factory with @tilepipe.jit) and call that"
        )


def prim_func(fn: Callable[..., Any] | None = None, **_options: Any) -> Any:
    """Decorate a kernel function (``@T.prim_func`` or ``@T.prim_func()``)."""
    outer = sys._getframe(1).f_locals  # the factory's scope (module scope: its globals)
    if fn is None:
        return lambda f: PrimFunc(f, outer)
    return PrimFunc(fn, outer)


def _stable(value: Any) -> Any:
    """A hashable stand-in for a value the kernel may depend on: numbers, strings
    and containers by value; modules and functions by name; the rest by ``repr``."""
    if isinstance(value, bool | int | float | str | type(None)):
        return (type(value).__name__, value)
    if isinstance(value, list | tuple):
        return tuple(_stable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _stable(v)) for k, v in value.items()))
    if inspect.ismodule(value):
        return ("module", value.__name__)
    if callable(value) and hasattr(value, "__qualname__"):
        return ("callable", getattr(value, "__module__", ""), value.__qualname__)
    return ("repr", repr(value))
