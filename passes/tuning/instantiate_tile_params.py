"""``instantiate-tile-params``: a kernel that declares tile-size candidates, rewritten
at one value of each parameter (docs/schedule_sim.md, "Declared tile sizes").

The kernel is written at its parameters' defaults and names, at every number that
follows a parameter, which one (:mod:`tilepipe.dialects.tile_params`).  Each such
number is rewritten: a parameter's value becomes the new value, a count of its tiles
over a fixed extent becomes the extent over the new value (which must divide it), and
the declarations are dropped, leaving a plain concrete kernel.  Whether the result is
consistent -- every tile op's shape against its buffers -- is the ops' own verifiers'
business: a dimension that follows a parameter but does not name it is reported by
them, at that op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.dialects.memref import AllocOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.exceptions import PassFailedException

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.tile_base import TileOp
from tilepipe.dialects.tile_params import (
    DIMS,
    GRID_TILES_OF,
    PARAM,
    PARAMETER_ATTRS,
    TILES_OF,
    TUNE,
    ParameterUse,
    declaring_kernel,
    parameter_defaults,
    tune_candidates,
    uses_of_op,
)
from tilepipe.core.source import parse_assignments


class InstantiateUses(RewritePattern):
    """Rewrites the numbers of one op that follow a parameter, for the values of its
    kernel (``values[kernel]``: every parameter's new value; ``defaults[kernel]``: its
    value as written)."""

    def __init__(self, values: dict[FuncOp, dict[str, int]], defaults: dict[FuncOp, dict[str, int]]):
        self.values = values
        self.defaults = defaults

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        if not any(name in op.attributes for name in PARAMETER_ATTRS):
            return
        kernel = declaring_kernel(op)
        if kernel is None:
            return
        uses = uses_of_op(op, tune_candidates(kernel))
        numbers = {(use.attr, use.position): self._number(use, kernel) for use in uses}
        # The kernel's own declaration goes last (InstantiateTileParams.apply): the
        # ops inside still look it up.
        for name in PARAMETER_ATTRS:
            if name != TUNE:
                op.attributes.pop(name, None)
        if isinstance(op, arith.ConstantOp) and numbers:
            (value,) = numbers.values()
            new = arith.ConstantOp(IntegerAttr(value, IndexType()))
            new.result.name_hint = op.result.name_hint
            rewriter.replace(op, new)
            return
        if isinstance(op, AllocOp) and numbers:
            old = op.memref.type
            assert isinstance(old, MemRefType)
            shape = [numbers.get((DIMS, i), d) for i, d in enumerate(old.get_shape())]
            new_type = MemRefType(old.element_type, shape, old.layout, old.memory_space)
            new = AllocOp(op.dynamic_sizes, op.symbol_operands, new_type, op.alignment)
            new.attributes.update(op.attributes)
            new.memref.name_hint = op.memref.name_hint
            rewriter.replace(op, new)
            return
        if isinstance(op, TileOp) and numbers:
            shape = [numbers.get((DIMS, i), d) for i, d in enumerate(op.tile_shape)]
            op.properties["shape"] = DenseArrayBase.from_list(i64, shape)
        if isinstance(op, FuncOp) and numbers:
            grid = op.attributes["tile.grid"]
            assert isinstance(grid, DenseArrayBase)
            extents = [numbers.get((GRID_TILES_OF, i), d) for i, d in enumerate(grid.get_values())]
            op.attributes["tile.grid"] = DenseArrayBase.from_list(i64, extents)
        rewriter.notify_op_modified(op)

    def _number(self, use: ParameterUse, kernel: FuncOp) -> int:
        value = self.values[kernel][use.param]
        if use.attr in (PARAM, DIMS):
            return value
        assert use.attr in (TILES_OF, GRID_TILES_OF)
        extent = use.written * self.defaults[kernel][use.param]
        if extent % value:
            where = "" if use.attr == TILES_OF else f" (grid dimension {use.position})"
            raise op_error(
                use.op,
                f"counts tiles of '{use.param}' over {extent}{where}, which "
                f"{use.param} = {value} does not divide",
            )
        return extent // value


@dataclass(frozen=True)
class InstantiateTileParams(ModulePass):
    """Rewrite every kernel that declares ``tile.tune`` at the given parameter values
    (a parameter not given keeps the value the kernel is written at)."""

    name = "instantiate-tile-params"

    values: str | None = None
    """The parameters' values, e.g. "block_M=64,block_K=32"."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            given = parse_assignments(self.values, "tile parameters")
        except ValueError as err:
            raise PassFailedException(f"instantiate-tile-params: {err}") from None
        kernels = [f for f in op.walk() if isinstance(f, FuncOp) and tune_candidates(f)]
        declared = {name for kernel in kernels for name in tune_candidates(kernel)}
        # A name no kernel declares is a typo (a module without declarations, one
        # input of a split file, say, has nothing to rewrite).
        unknown = [name for name in given if name not in declared]
        if kernels and unknown:
            raise PassFailedException(
                f"instantiate-tile-params: no kernel declares '{unknown[0]}' in 'tile.tune' "
                f"(declared: {', '.join(sorted(declared))})"
            )
        for name, value in given.items():
            if value <= 0:
                raise PassFailedException(
                    f"instantiate-tile-params: {name} = {value} is not a positive size"
                )
        defaults = {kernel: parameter_defaults(kernel) for kernel in kernels}
        values = {
            kernel: {name: given.get(name, default) for name, default in defaults[kernel].items()}
            for kernel in kernels
        }
        PatternRewriteWalker(InstantiateUses(values, defaults), apply_recursively=False).rewrite_module(op)
        for kernel in kernels:
            kernel.attributes.pop(TUNE)
