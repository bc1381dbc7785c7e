"""Kernels out of a host's upstream module, compiled kernels back in (docs/api.md,
"Kernels and host code").

An ML compiler's module holds far more than tilepipe's kernels: host functions in
dialects xDSL has never heard of, module attributes of its own, ``gpu.module``\\ s from
other code generators.  None of that needs to cross into xDSL.  :func:`extract_kernels`
prints only the kernels (and the functions they call) for tilepipe to parse;
:func:`splice_kernels` builds the result with upstream's own API: every other op of
the caller's module is cloned as it is, each kernel is replaced where it stood by what
the compile left of it (the kernel itself at the scheduled level, its host launcher,
or nothing), and new ops (the ``gpu.module``) go where the first kernel was.  The
caller's module is never modified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr

from tilepipe.core.diagnostics import Diagnostic, SourceLocation

KERNEL_ATTRS = ("tile.grid", "tile.threads", "tile.target", "tile.kernel")
KERNEL_DIALECTS = ("tile.", "pipeline.")


class SpliceError(Exception):
    """The caller's module cannot be compiled as asked; ``diagnostics`` say where."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("\n".join(str(d) for d in diagnostics))
        self.diagnostics = diagnostics


def upstream_location(location: Any) -> SourceLocation | None:
    """The first ``"file":line:col`` of an upstream location (plain, fused, callsite,
    named), or None (``loc(unknown)``)."""
    match = re.search(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)', str(location))
    return SourceLocation(match[1], int(match[2]), int(match[3])) if match else None


_NAME_LOCATION = re.compile(r'loc\("(?:[^"\\]|\\.)*"\(')


def unwrap_name_locations(text: str) -> str:
    """``loc("A_s"("k.mlir":3:5))`` as ``loc("k.mlir":3:5)``: the name of a name
    location is already the SSA name (printed with ``use_name_loc_as_prefix``), the
    place inside it is what diagnostics point at."""
    while (match := _NAME_LOCATION.search(text)) is not None:
        depth, end = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        text = text[: match.start()] + "loc(" + text[match.end() : end - 1] + text[end:]
    return text


def _symbol(op: Any) -> str | None:
    attributes = op.attributes
    if "sym_name" not in attributes:
        return None
    return str(attributes["sym_name"]).strip('"')


def _walk(op: Any, visit) -> None:
    from mlir import ir

    def callback(inner):
        visit(inner)
        return ir.WalkResult.ADVANCE

    op.walk(callback)


def _is_kernel(op: Any) -> bool:
    """The same rule as ``tilepipe.dialects.kernel_attrs.is_kernel``, on an upstream op."""
    if op.name != "func.func":
        return False
    if any(name in op.attributes for name in KERNEL_ATTRS):
        return True
    found = []
    _walk(op, lambda inner: found.append(inner.name.startswith(KERNEL_DIALECTS)))
    return any(found)


def _symbol_uses(op: Any) -> list[tuple[str, Any]]:
    """``(symbol, user op)`` for every flat symbol reference inside ``op``."""
    from mlir import ir

    uses: list[tuple[str, Any]] = []

    def visit(inner):
        for _, attr in inner.attributes.items():
            if isinstance(attr, ir.FlatSymbolRefAttr):
                uses.append((attr.value, inner))

    _walk(op, visit)
    return uses


@dataclass
class Extraction:
    """What :func:`extract_kernels` took out of the caller's module."""

    text: str
    """A module of the kernels and the functions they call, in generic form with the
    caller's locations: what tilepipe parses."""
    kernels: list[str] = field(default_factory=list)
    callees: list[str] = field(default_factory=list)
    symbols: set[str] = field(default_factory=set)
    """Every symbol the caller's module defines at its top level."""


def extract_kernels(module_op: Any) -> Extraction:
    """The kernels of an upstream ``builtin.module`` and the functions they call."""
    from tilepipe.core.registry import make_context
    from tilepipe.drivers.interop import inline_location_aliases

    if module_op.name != "builtin.module":
        raise SpliceError([Diagnostic("error", f"expected a builtin.module, got '{module_op.name}'",
                                      upstream_location(module_op.location))])
    top = list(module_op.regions[0].blocks[0].operations)
    by_name = {name: op for op in top if (name := _symbol(op.operation)) is not None}
    kernels = [op for op in top if _is_kernel(op.operation)]
    known = make_context()
    errors: list[Diagnostic] = []
    for kernel in kernels:
        def check(inner, kernel_name=_symbol(kernel.operation)):
            if known.get_optional_op(inner.name) is None:
                errors.append(Diagnostic(
                    "error",
                    f"'{inner.name}' op in kernel @{kernel_name} is not an op tilepipe "
                    "compiles (a kernel holds tile, pipeline and core MLIR ops; host code "
                    "may use any dialect)",
                    upstream_location(inner.location),
                ))
        _walk(kernel.operation, check)
    if errors:
        raise SpliceError(errors)
    # The functions kernels call, transitively, travel with them (unchanged).
    taken = [_symbol(k.operation) for k in kernels]
    callees: list[str] = []
    pending = list(kernels)
    while pending:
        for used, _ in _symbol_uses(pending.pop().operation):
            if used in by_name and used not in taken and used not in callees:
                if by_name[used].operation.name == "func.func":
                    callees.append(used)
                    pending.append(by_name[used])
    chosen = [op for op in top if _symbol(op.operation) in {*taken, *callees}]
    # Values the host named with name locations keep their names (diagnostics speak
    # of the caller's A_s, not of %0).
    body = "\n".join(
        op.operation.get_asm(
            enable_debug_info=True, print_generic_op_form=True, use_name_loc_as_prefix=True
        )
        for op in chosen
    )
    text = inline_location_aliases('"builtin.module"() ({\n' + body + "\n}) : () -> ()\n")
    text = unwrap_name_locations(text)
    return Extraction(text, taken, callees, set(by_name))


def _free_name(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    suffix = 1
    while f"{name}_{suffix}" in taken:
        suffix += 1
    return f"{name}_{suffix}"


def _rename_new_symbols(result: ModuleOp, extraction: Extraction) -> None:
    """Give each new top-level symbol of ``result`` (the ``gpu.module``) a name the
    caller's module does not use, and point the launches at it."""
    renames: dict[str, str] = {}
    for op in result.ops:
        name = op.attributes.get("sym_name") or op.properties.get("sym_name")
        if not isinstance(name, StringAttr):
            continue
        if name.data in extraction.kernels or name.data in extraction.callees:
            continue
        fresh = _free_name(name.data, extraction.symbols | set(renames.values()))
        if fresh != name.data:
            renames[name.data] = fresh
            if "sym_name" in op.properties:
                op.properties["sym_name"] = StringAttr(fresh)
            else:
                op.attributes["sym_name"] = StringAttr(fresh)
    if not renames:
        return
    for op in result.walk():
        for store in (op.attributes, op.properties):
            for key, value in list(store.items()):
                if isinstance(value, SymbolRefAttr) and value.root_reference.data in renames:
                    store[key] = SymbolRefAttr(renames[value.root_reference.data], value.nested_references)


def splice_kernels(original: Any, result: ModuleOp, extraction: Extraction) -> Any:
    """A new module in ``original``'s context: ``original`` with its kernels replaced
    by what ``result`` (the compiled extraction) holds for them."""
    from mlir import ir

    from tilepipe.lowering.nvvm.upstream import generic_text

    _rename_new_symbols(result, extraction)
    context = original.context
    compiled = ir.Module.parse(generic_text(result), context=context)
    replacements: dict[str, Any] = {}
    new_ops: list[Any] = []
    for op in compiled.body.operations:
        name = _symbol(op.operation)
        if name in extraction.kernels:
            replacements[name] = op
        elif name not in extraction.callees:
            new_ops.append(op)
    # A kernel that left nothing behind must not be called by what stays.
    gone = set(extraction.kernels) - set(replacements)
    dangling = []
    for op in original.regions[0].blocks[0].operations:
        if _symbol(op.operation) in gone:
            continue
        for used, user in _symbol_uses(op.operation):
            if used in gone:
                dangling.append(Diagnostic(
                    "error",
                    f"'{user.name}' op refers to kernel @{used}, which the lowering moves "
                    "into a gpu.module; compile with host_launch=True "
                    "(lower-to-nvvm{host-launch=true}) to leave a launcher of that name",
                    upstream_location(user.location),
                ))
    if dangling:
        raise SpliceError(dangling)

    with context, original.location:
        spliced = ir.Module.create()
    for name, attr in original.attributes.items():
        spliced.operation.attributes[name] = attr
    for name, attr in compiled.operation.attributes.items():
        if name not in spliced.operation.attributes:
            spliced.operation.attributes[name] = attr
    point = ir.InsertionPoint(spliced.body)
    placed_new = False
    for op in original.regions[0].blocks[0].operations:
        name = _symbol(op.operation)
        if name in extraction.kernels:
            if not placed_new:
                for new in new_ops:
                    new.operation.clone(ip=point)
                placed_new = True
            if name in replacements:
                replacements[name].operation.clone(ip=point)
        else:
            op.operation.clone(ip=point)
    return spliced


__all__ = ["Extraction", "SpliceError", "extract_kernels", "splice_kernels", "upstream_location"]
