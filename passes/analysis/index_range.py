"""Integer ranges of ``index`` values, and which dimensions of a tile region provably
stay inside a global array.

A tile op's region may reach past a global array's bounds (docs/semantics.md: reads
outside are 0, writes outside are dropped), so the CUDA lowering predicates every
global access -- except along the dimensions this module proves in bounds for every
block and iteration.  That proof keeps the interior fast path of a kernel over static
shapes free of new predicates, and it decides whether a copy may become a bulk copy,
which cannot zero-fill (``tma-copy``).

The ranges are intervals, computed over the def chain: constants, ``arith`` integer
ops, block ids (``[0, grid - 1]`` from the kernel's ``tile.grid`` or ``gpu.func``'s
``known_grid_size``) and loop induction variables (``[lb, ub - 1]`` for a positive
constant step).  Anything else -- kernel arguments, loaded values -- is unbounded, and
guards around an access are not used: a dimension that would need them to be proved
in bounds is simply predicated.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, MemRefType
from xdsl.ir import BlockArgument, SSAValue

from tilepipe.dialects.tile import BlockIdOp, constant_index

from tilepipe.passes.analysis.symbolic_index import LoopOp

Bound = int | None
Range = tuple[Bound, Bound]  # inclusive; None: unbounded on that side
UNBOUNDED: Range = (None, None)
_DEPTH = 24  # def-chain depth explored before giving up (unbounded)


def index_range(value: SSAValue, depth: int = _DEPTH) -> Range:
    """An interval that contains every value ``value`` takes at run time."""
    known = constant_index(value)
    if known is not None:
        return known, known
    if depth == 0:
        return UNBOUNDED
    if isinstance(value, BlockArgument):
        return _induction_variable_range(value, depth - 1)
    owner = value.owner
    if isinstance(owner, BlockIdOp | gpu.BlockIdOp):
        extent = _grid_extent(owner)
        return (0, extent - 1) if extent is not None else (0, None)
    operands = [index_range(v, depth - 1) for v in owner.operands]
    if isinstance(owner, arith.AddiOp):
        return _add(*operands)
    if isinstance(owner, arith.SubiOp):
        (a_lo, a_hi), (b_lo, b_hi) = operands
        return _add((a_lo, a_hi), (_neg(b_hi), _neg(b_lo)))
    if isinstance(owner, arith.MuliOp):
        return _mul(*operands)
    if isinstance(owner, arith.DivUIOp | arith.DivSIOp | arith.FloorDivSIOp):
        return _div(*operands)
    if isinstance(owner, arith.CeilDivUIOp | arith.CeilDivSIOp):
        return _ceil_div(*operands)
    if isinstance(owner, arith.RemUIOp | arith.RemSIOp):
        return _rem(*operands)
    if isinstance(owner, arith.MinSIOp | arith.MinUIOp):
        return _min(*operands)
    if isinstance(owner, arith.MaxSIOp | arith.MaxUIOp):
        return _max(*operands)
    if isinstance(owner, arith.SelectOp):
        return _hull(operands[1], operands[2])
    if isinstance(owner, arith.IndexCastOp):
        return operands[0]
    return UNBOUNDED


def dims_in_bounds(
    buffer_type: MemRefType, offsets: Sequence[SSAValue], tile_shape: Sequence[int]
) -> tuple[bool, ...]:
    """For each dimension of ``buffer_type``: is ``offset .. offset + extent - 1``
    inside ``[0, size)`` whenever the access runs?  The tile's shape is right-aligned
    with the buffer's (leading buffer dimensions have extent 1); no offsets means 0."""
    shape = buffer_type.get_shape()
    extents = (1,) * (len(shape) - len(tile_shape)) + tuple(tile_shape)
    proved: list[bool] = []
    for dim, (size, extent) in enumerate(zip(shape, extents)):
        lo, hi = index_range(offsets[dim]) if offsets else (0, 0)
        proved.append(
            size != DYNAMIC_INDEX and lo is not None and lo >= 0
            and hi is not None and hi + extent <= size
        )
    return tuple(proved)


# ---------------------------------------------------------------- leaves


def _grid_extent(op: BlockIdOp | gpu.BlockIdOp) -> int | None:
    """The launch grid's extent along ``op``'s dimension, when the kernel states it
    as constants (``tile.grid`` at the tile level, ``known_grid_size`` after
    ``lower-to-nvvm``)."""
    if isinstance(op, BlockIdOp):
        axis = "xyz".index(op.dimension.data)
    else:
        axis = "xyz".index(op.dimension.data.value)
    kernel = op.parent_op()
    while kernel is not None and kernel.name not in ("func.func", "gpu.func"):
        kernel = kernel.parent_op()
    if kernel is None:
        return None
    grid = kernel.attributes.get("tile.grid") or kernel.properties.get("known_grid_size")
    if not isinstance(grid, DenseArrayBase):
        return None
    extents = tuple(grid.get_values())
    if axis >= len(extents):
        return 1  # a launch grid's missing dimensions have extent 1
    extent = extents[axis]
    return extent if isinstance(extent, int) and extent > 0 else None


def _induction_variable_range(arg: BlockArgument, depth: int) -> Range:
    loop = arg.block.parent_op()
    if not isinstance(loop, LoopOp) or arg.index != 0:
        return UNBOUNDED
    step = constant_index(loop.step)
    if step is None or step <= 0:
        return UNBOUNDED
    lb, _ = index_range(loop.lb, depth)
    _, ub = index_range(loop.ub, depth)
    return lb, (ub - 1 if ub is not None else None)


# ---------------------------------------------------------------- interval arithmetic


def _neg(bound: Bound) -> Bound:
    return -bound if bound is not None else None


def _add(a: Range, b: Range) -> Range:
    lo = a[0] + b[0] if a[0] is not None and b[0] is not None else None
    hi = a[1] + b[1] if a[1] is not None and b[1] is not None else None
    return lo, hi


def _mul(a: Range, b: Range) -> Range:
    if None in a or None in b:
        # Non-negative factors keep a lower bound (tile offsets: block id * extent).
        if a[0] is not None and b[0] is not None and a[0] >= 0 and b[0] >= 0:
            return a[0] * b[0], None
        return UNBOUNDED
    products = [x * y for x in a for y in b]  # type: ignore[operator]
    return min(products), max(products)


def _div(a: Range, b: Range) -> Range:
    if b[0] is None or b[0] <= 0 or a[0] is None or a[0] < 0:
        return UNBOUNDED  # only non-negative by positive: C and floor division agree
    return a[0] // b[1] if b[1] is not None else 0, (
        a[1] // b[0] if a[1] is not None else None
    )


def _ceil_div(a: Range, b: Range) -> Range:
    lo, hi = _div(a, b)
    return lo, (hi + 1 if hi is not None else None)


def _rem(a: Range, b: Range) -> Range:
    if b[0] is None or b[0] <= 0 or a[0] is None or a[0] < 0:
        return UNBOUNDED
    hi = b[1] - 1 if b[1] is not None else None
    if a[1] is not None and (hi is None or a[1] < hi):
        hi = a[1]
    return 0, hi


def _min(a: Range, b: Range) -> Range:
    lo = min(a[0], b[0]) if a[0] is not None and b[0] is not None else None
    his = [h for h in (a[1], b[1]) if h is not None]
    return lo, (min(his) if his else None)


def _max(a: Range, b: Range) -> Range:
    los = [lo for lo in (a[0], b[0]) if lo is not None]
    hi = max(a[1], b[1]) if a[1] is not None and b[1] is not None else None
    return (max(los) if los else None), hi


def _hull(a: Range, b: Range) -> Range:
    lo = min(a[0], b[0]) if a[0] is not None and b[0] is not None else None
    hi = max(a[1], b[1]) if a[1] is not None and b[1] is not None else None
    return lo, hi

