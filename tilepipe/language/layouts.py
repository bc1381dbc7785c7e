"""Tensors whose tiles span non-trailing dimensions: ``Q[b, rows, h, :]``.

A tile op covers a buffer's trailing dimensions (the leading ones are indexed by
a scalar), so TileLang's ``(batch, seq_len, heads, dim)`` attention tensors, whose
tiles are rows of ``seq_len`` by all of ``dim`` at one head, are not tile regions
as they stand.  They are once the trailing ``heads`` and ``dim`` are packed into
one dimension of ``heads * dim`` elements -- the same bytes in the same order, a
row-major reshape: ``Q[b, rows, h, :]`` is ``Q'[b, rows, h * dim : (h + 1) * dim]``,
a 2-D tile of stride ``heads * dim``.

:func:`packed_dims` finds, from the kernel's source, the tensors indexed that way
(a scalar index after a slice, followed only by slices) and where their packed
dimensions start; the kernel's parameter then has the packed type, and
:func:`pack_region` rewrites every subscript of it.  Calling the kernel reshapes
the arrays (``JITKernel``), so users see their own shapes.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable
from typing import Any

from tilepipe.language.errors import FrontendError


def packed_dims(tree: ast.AST, tensors: Iterable[str]) -> dict[str, int]:
    """For each of ``tensors`` some subscript indexes as ``[..., a:b, ..., h, :, ...]``
    -- a scalar after a tile dimension (a slice, or in a ``T.Parallel`` body an index
    using its variables) with only tile dimensions after it: the first such scalar's
    dimension, from which on its dimensions are packed into one."""
    names = set(tensors)
    found: dict[str, int] = {}
    for node, loop_vars in _subscripts(tree, frozenset()):
        if not (isinstance(node.value, ast.Name) and node.value.id in names
                and isinstance(node.slice, ast.Tuple)):
            continue
        items = node.slice.elts
        tiled = [isinstance(item, ast.Slice) or any(
            isinstance(n, ast.Name) and n.id in loop_vars for n in ast.walk(item)) for item in items]
        for d in range(1, len(items) - 1):
            if not tiled[d] and any(tiled[:d]) and all(tiled[d + 1:]):
                found[node.value.id] = min(d, found.get(node.value.id, d))
                break
    return found


def _subscripts(node: ast.AST, loop_vars: frozenset[str]) -> Iterable[tuple[ast.Subscript, frozenset[str]]]:
    """Every subscript under ``node``, with the ``T.Parallel`` variables in scope."""
    if isinstance(node, ast.For) and _is_parallel(node.iter):
        targets = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
        loop_vars = loop_vars | {t.id for t in targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.Subscript):
        yield node, loop_vars
    for child in ast.iter_child_nodes(node):
        yield from _subscripts(child, loop_vars)


def _is_parallel(call: ast.expr) -> bool:
    func = call.func if isinstance(call, ast.Call) else None
    return (isinstance(func, ast.Attribute) and func.attr == "Parallel") or (
        isinstance(func, ast.Name) and func.id == "Parallel")


def packed_shape(shape: tuple[Any, ...], start: int) -> tuple[Any, ...]:
    tail = shape[start:]
    if not all(isinstance(d, int) and d > 0 for d in tail):
        raise FrontendError(f"the dimensions {tail} of a tile over non-trailing dimensions "
                            "must be compile-time sizes")
    return (*shape[:start], math.prod(tail))


def pack_region(b: Any, logical: tuple[int, ...], start: int, starts: list[Any],
                extents: list[int | None]) -> tuple[list[Any], list[int | None]]:
    """The packed buffer's ``starts``/``extents`` for a subscript of the logical
    ``logical``-shaped tensor: the dimensions from ``start`` on must be scalars, then
    at most one slice, then whole dimensions (a contiguous run of the packed one)."""
    from tilepipe.language import parallel  # a loop variable in a T.Parallel load

    group = list(zip(starts[start:], extents[start:], logical[start:]))
    strides = [math.prod(logical[start + j + 1:]) for j in range(len(group))]
    sliced = next((j for j, (s, e, _) in enumerate(group)
                   if e is not None or isinstance(s, parallel.LoopVar)), len(group))
    for j in range(sliced + 1, len(group)):
        s, e, size = group[j]
        if not (s == 0 and e == size):
            raise FrontendError(
                f"after a slice, the dimensions of a tensor indexed as [..., rows, h, :] must be "
                f"whole (`:`); dimension {start + j} is not")
    offset: Any = 0
    for j, (s, e, _) in enumerate(group[: sliced + 1]):
        if isinstance(s, parallel.LoopVar):
            if j != len(group) - 1:
                raise FrontendError("a T.Parallel variable may index only the last dimension "
                                    "of a tensor indexed as [..., rows, h, :]")
            offset = parallel.affine(b, "add", s, offset)
        else:
            offset = b.binary("add", offset, b.binary("mul", s, strides[j]))
    extent = None
    if sliced < len(group):
        extent = group[sliced][1]
        if extent is not None:
            extent *= strides[sliced]
    return [*starts[:start], offset], [*extents[:start], extent]
