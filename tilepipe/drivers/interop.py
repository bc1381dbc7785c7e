"""Modules across the boundary between upstream MLIR's Python bindings and xDSL.

An embedding compiler holds its IR as ``mlir.ir.Module``; tilepipe's passes are xDSL.
The two meet in text: upstream prints the generic form with its locations, tilepipe
parses it (:func:`from_upstream`), and the way back is the generic form tilepipe
prints with its locations, parsed in the caller's own context (:func:`to_upstream`).
Locations survive both ways, so a diagnostic names the caller's file and line.

Upstream prints a location that occurs more than once as an alias defined at the end
of the module (``loc(#loc3)`` ... ``#loc3 = loc("k.mlir":12:3)``).  tilepipe's parser
(:func:`~tilepipe.core.source.parse_source`) reads such an alias before its
definition; xDSL's own parser cannot (an alias must be defined before its use), and
:func:`inline_location_aliases` writes each alias out where it is used for a tool
that parses with it (the stock ``xdsl-opt`` without ``-f tilepipe``).
"""

from __future__ import annotations

import re
from typing import Any

from xdsl.dialects.builtin import ModuleOp

_ALIAS_DEFINITION = re.compile(r"^(#loc\d*) = (loc\(.*\))[ \t]*$", re.MULTILINE)
_ALIAS_USE = re.compile(r"#loc\d*\b")


def inline_location_aliases(text: str) -> str:
    """``text`` with every ``#locN`` location alias replaced by its definition.

    Inside ``loc(...)`` an alias stands for a location; nested in another location
    (``fused[...]``, ``callsite(... at ...)``) it is written without ``loc(...)``."""
    definitions = {m[1]: m[2] for m in _ALIAS_DEFINITION.finditer(text)}
    if not definitions:
        return text
    body = _ALIAS_DEFINITION.sub("", text)
    bare = {name: value[len("loc(") : -1] for name, value in definitions.items()}

    def expand(fragment: str, depth: int = 0) -> str:
        # Aliases may name aliases (a fused location of two aliased ones): expand
        # until none is left; upstream never defines a cycle, the bound is a guard.
        if depth > len(definitions):
            raise ValueError("cyclic location aliases")
        fragment = re.sub(
            r"loc\((#loc\d*)\)",
            lambda m: "loc(" + bare[m[1]] + ")" if m[1] in bare else m[0],
            fragment,
        )
        expanded = _ALIAS_USE.sub(lambda m: bare.get(m[0], m[0]), fragment)
        return expanded if expanded == fragment else expand(expanded, depth + 1)

    return expand(body).rstrip() + "\n"


def is_upstream(value: object) -> bool:
    """Whether ``value`` is an ``mlir.ir`` module or operation (without importing the
    bindings when the caller has not)."""
    return type(value).__module__.startswith("mlir.")


def upstream_operation(value: Any) -> Any:
    """The ``mlir.ir.Operation`` of a ``Module``, an ``Operation`` or an op view."""
    operation = getattr(value, "operation", value)
    return operation


def from_upstream(value: Any, name: str = "<upstream>") -> ModuleOp:
    """An xDSL module from an upstream module or ``builtin.module`` operation, with
    its locations; bad input is a located :class:`~tilepipe.core.diagnostics.InputError`."""
    from tilepipe.core.source import parse_source

    operation = upstream_operation(value)
    text = operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
    return parse_source(text, name)


def to_upstream(module: ModuleOp, like: Any) -> Any:
    """``module`` as the kind ``like`` is (``mlir.ir.Module`` or ``Operation``), parsed
    in ``like``'s context, so it stays in the caller's context."""
    from mlir import ir

    from tilepipe.lowering.nvvm.upstream import generic_text

    context = upstream_operation(like).context
    parsed = ir.Module.parse(generic_text(module), context=context)
    return parsed if isinstance(like, ir.Module) else parsed.operation


__all__ = [
    "from_upstream",
    "inline_location_aliases",
    "is_upstream",
    "to_upstream",
]
