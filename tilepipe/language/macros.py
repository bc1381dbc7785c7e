"""Python helpers called inside a kernel, and ``@T.macro``.

TileLang's programs factor their kernels into helpers: a ``@T.macro`` that emits a
few tile statements, or a plain function handed a buffer (``make_dq_layout(dQ)``,
which builds a ``T.Layout`` of the buffer's shape).  The frontend *inlines* such a
call: it walks the helper's own source with the statement walker, its parameters
bound to the call's values, so the statements it emits are located at the helper's
lines, and its ``return`` (the last statement; or none) is the call's value.  A
plain function called with compile-time values only is just called, as Python.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tilepipe.language.errors import FrontendError, PySource, read_function

MACRO_ATTRIBUTE = "__tilepipe_macro__"
MAX_DEPTH = 32  # a recursive helper would otherwise inline forever


def macro(fn: Callable[..., Any] | None = None, **_options: Any) -> Any:
    """``@T.macro``: a helper whose calls in a kernel are always inlined."""

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        setattr(f, MACRO_ATTRIBUTE, True)
        return f

    return mark if fn is None else mark(fn)


def inlinable(fn: Any) -> bool:
    """A Python function of the user's (not tilepipe's, not the standard library's)
    whose source can be read."""
    if not inspect.isfunction(fn):
        return False
    module = getattr(fn, "__module__", "") or ""
    return not module.startswith("tilepipe.") and module not in ("builtins",) and \
        inspect.getsourcefile(fn) is not None


class HelperInliner:
    """Mixed into the statement walker: ``inline(fn, args, kwargs)``."""

    names: dict[str, Any]
    source: PySource
    inline_depth: int = 0

    def inline(self, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self.inline_depth >= MAX_DEPTH:
            raise FrontendError(f"{fn.__name__}() inlines itself more than {MAX_DEPTH} deep")
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as err:
            raise FrontendError(f"{fn.__name__}(): {err}") from None
        bound.apply_defaults()
        _, source, tree = read_function(fn)
        names: dict[str, Any] = dict(vars(builtins))
        names.update(fn.__globals__)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                names[name] = cell.cell_contents
            except ValueError:
                pass
        names.update(bound.arguments)
        body = tree.body
        with self._scope(names, source):
            for stmt in body:
                if isinstance(stmt, ast.Return) and stmt is body[-1]:
                    if stmt.value is None:
                        return None
                    return self.guard(stmt, lambda s=stmt: self.eval(s.value))  # type: ignore[attr-defined]
                self.statements([stmt])  # type: ignore[attr-defined]
        return None

    @contextmanager
    def _scope(self, names: dict[str, Any], source: PySource) -> Iterator[None]:
        saved = self.names, self.source
        self.names, self.source = names, source
        self.inline_depth += 1
        try:
            yield
        finally:
            self.names, self.source = saved
            self.inline_depth -= 1
