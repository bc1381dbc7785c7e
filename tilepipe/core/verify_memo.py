"""Verify a module again only if it changed since it last verified.

The interpreters verify the module they are given, and a test or a tuner hands them
the same module for every trip count, depth and input; the compile flows verify after
every pass, including passes that found nothing to do.  xDSL's verifier checks every
op's constraints (about 30 us an op); telling whether a module is the one that last
verified costs a walk over its ops (about 4 us an op).

A module is the one that verified when the same ops, in the same order and blocks,
have the same operands, result types, attributes, properties, successors, blocks and
block argument types, all compared by identity: xDSL attributes are immutable, so any
edit replaces one of these objects.  The memo holds its modules (and so the objects
compared) strongly, which is why it is small.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from xdsl.dialects.builtin import ModuleOp

from tilepipe.core.diagnostics import Diagnostic, verify_module

_MEMO_SIZE = 8
_SEPARATOR = object()
_verified: OrderedDict[int, tuple[ModuleOp, list[object]]] = OrderedDict()
_lock = threading.Lock()


def _shape(module: ModuleOp) -> list[object]:
    parts: list[object] = []
    extend = parts.extend
    for op in module.walk():
        extend((_SEPARATOR, op, op.parent))
        extend(op.operands)
        extend(result.type for result in op.results)
        parts.append(_SEPARATOR)
        extend(op.attributes.items())
        parts.append(_SEPARATOR)
        extend(op.properties.items())
        parts.append(_SEPARATOR)
        extend(op.successors)
        for region in op.regions:
            parts.append(region)
            for block in region.blocks:
                parts.append(block)
                extend(arg.type for arg in block.args)
    return parts


def _same(a: list[object], b: list[object]) -> bool:
    # Identity throughout; an attribute key that is equal but not the same string
    # only costs a verification.
    return len(a) == len(b) and all(
        x is y or (type(x) is tuple and type(y) is tuple and x[0] is y[0] and x[1] is y[1])
        for x, y in zip(a, b)
    )


def verify_module_if_changed(module: ModuleOp) -> Diagnostic | None:
    """:func:`~tilepipe.core.diagnostics.verify_module`, skipped when ``module`` is
    unchanged since it last verified here."""
    shape = _shape(module)
    with _lock:
        known = _verified.get(id(module))
        if known is not None and known[0] is module and _same(known[1], shape):
            _verified.move_to_end(id(module))
            return None
    if (diagnostic := verify_module(module)) is not None:
        return diagnostic
    with _lock:
        _verified[id(module)] = (module, shape)
        _verified.move_to_end(id(module))
        while len(_verified) > _MEMO_SIZE:
            _verified.popitem(last=False)
    return None
