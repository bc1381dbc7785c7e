"""Boundary tiles: predicated global accesses of ``lower-to-nvvm``.

A tile op's region may reach past a global array (docs/semantics.md): elements read
outside are 0, elements written outside are dropped.  On-chip buffers stay strict.
For each global operand of a tile op the lowering asks ``index_range.dims_in_bounds``
which dimensions stay inside the array for every block and iteration; the others
get a predicate per access:

* a load becomes ``scf.if %in -> T { memref.load } else { 0 }``, a store
  ``scf.if %in { memref.store }``; a vector run keeps one aligned ``vector.load`` /
  ``vector.store`` under one predicate when the run is wholly inside or wholly
  outside the array (the innermost dimension is proven in bounds, or its size is a
  multiple of the run: ``EdgeChecks.whole_runs``), else it goes element by element;
* a ``cp.async`` chunk reads ``srcElements`` of its elements -- all of them inside,
  the part of the row inside the array at the edge, 0 for a row past it -- and
  zero-fills the rest (PTX's src-size form, ``nvgpu.device_async_copy``'s
  ``srcElements`` operand);
* a bulk copy (sm_90) cannot zero-fill, so it is guarded by the block-uniform test
  "is the whole box inside?": inside, thread 0 issues the bulk copies as usual;
  otherwise every thread copies its cooperative chunks with predicated loads, a
  block barrier orders those stores before thread 0 completes the box's bytes on
  the mbarrier (``mbarrier.complete_tx``), and the waiters see the phase complete
  as they would after the bulk copy.

Most blocks lie wholly inside their arrays, so a tile op with such a region is
lowered twice (``access.with_interior_fast_path``): under the block-uniform
``region_inside`` test of every edge-checked operand, as if the regions were proven in
bounds (unpredicated accesses, as wide as alignment alone allows), else with the
predicates above -- only edge blocks pay for them.  ``cp.async`` chunks are not
duplicated (their zero-fill is one ``select`` per chunk, not a branch).

A dimension proven in bounds adds nothing: the static example GEMM, whose blocks and
iterations all stay inside its arrays, lowers exactly as before (the fast path).
Sizes come from the type when static, else from the memref descriptor
(``memref.dim``), read once per kernel argument at the kernel's entry.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.passes.analysis.divisibility import dim_divisibility
from tilepipe.passes.analysis.index_range import dims_in_bounds

from tilepipe.lowering.nvvm import emit


@dataclass(frozen=True)
class EdgeChecks:
    """The dimensions of a global operand that a tile op's region may leave."""

    buffer: SSAValue
    dims: tuple[int, ...]

    def size(self, dim: int) -> SSAValue:
        extent = self.buffer.type.get_shape()[dim]  # type: ignore[attr-defined]
        if extent != DYNAMIC_INDEX:
            return emit.const(extent)
        return _descriptor_size(self.buffer, dim)

    def contains(self, indices: Sequence[SSAValue], dims: Sequence[int] | None = None) -> SSAValue:
        """``i1``: are buffer ``indices`` inside the array along ``dims`` (default:
        every checked dimension)?  Unsigned, so a negative index is outside too."""
        condition: SSAValue | None = None
        for dim in self.dims if dims is None else dims:
            inside = arith.CmpiOp(indices[dim], self.size(dim), "ult").result
            condition = inside if condition is None else arith.AndIOp(condition, inside).result
        assert condition is not None
        return condition

    def whole_runs(self, width: int) -> bool:
        """Is a run of ``width`` elements that starts at a multiple of ``width``
        either wholly inside the array or wholly outside it, so that its first
        element's predicate covers it?  Yes when the innermost dimension is proven
        in bounds or its size is a multiple of ``width``."""
        last = len(self.buffer.type.get_shape()) - 1  # type: ignore[attr-defined]
        return last not in self.dims or dim_divisibility(self.buffer, last) % width == 0

    def load(self, indices: Sequence[SSAValue], width: int = 1) -> SSAValue:
        """``buffer[indices]`` (``width`` consecutive elements as one aligned vector
        when more than one: ``whole_runs``), or 0 outside the array."""
        element_type = self.buffer.type.element_type  # type: ignore[attr-defined]
        result_type = element_type if width == 1 else VectorType(element_type, [width])
        then_block, else_block = Block(), Block()
        select = scf.IfOp(
            self.contains(indices), [result_type], Region(then_block), Region(else_block)
        )
        with ImplicitBuilder(then_block):
            if width == 1:
                scf.YieldOp(emit.load(self.buffer, indices))
            else:
                scf.YieldOp(emit.vector_load(self.buffer, indices, width))
        with ImplicitBuilder(else_block):
            scf.YieldOp(emit.broadcast(zero(element_type), width))
        return select.results[0]

    def store(self, value: SSAValue, indices: Sequence[SSAValue]) -> None:
        """``buffer[indices] = value`` (a scalar, or a vector of ``whole_runs``)
        inside the array; dropped outside."""
        def store() -> None:
            if isinstance(value.type, VectorType):
                emit.vector_store(value, self.buffer, indices)
            else:
                emit.store(value, self.buffer, indices)

        emit.if_then(self.contains(indices), store)

    def region_inside(self, offsets: Sequence[SSAValue], extents: Sequence[int]) -> SSAValue:
        """``i1``: is the whole region at ``offsets`` (``extents``, right-aligned with
        the buffer's dimensions) inside the array?  Uniform when the offsets are.
        Its first element inside (unsigned: not before the start) and its end not
        past the size."""
        rank = len(self.buffer.type.get_shape())  # type: ignore[attr-defined]
        extents = (1,) * (rank - len(extents)) + tuple(extents)
        starts = list(offsets) if offsets else [emit.const(0)] * rank
        condition = self.contains(starts)
        for dim in self.dims:
            end = emit.add(starts[dim], extents[dim])
            inside = arith.CmpiOp(end, self.size(dim), "ule").result
            condition = arith.AndIOp(condition, inside).result
        return condition

    def elements_inside(self, indices: Sequence[SSAValue], width: int) -> SSAValue | None:
        """How many of the ``width`` elements of a row from ``indices`` lie inside the
        array (``cp.async``'s ``srcElements``): none unless the first one does, then
        up to the end of the row; None when all of them always do."""
        if not self.dims:
            return None
        last = len(self.buffer.type.get_shape()) - 1  # type: ignore[attr-defined]
        count = emit.const(width)
        if last in self.dims:
            left = arith.SubiOp(self.size(last), indices[last]).result
            count = arith.MinSIOp(left, count).result
        return arith.SelectOp(self.contains(indices), count, emit.const(0)).result


def edge_checks(
    buffer: SSAValue, offsets: Sequence[SSAValue], tile_shape: Sequence[int]
) -> EdgeChecks | None:
    """The checks a global ``buffer`` accessed by a ``tile_shape`` region at
    ``offsets`` needs (None: the region provably stays inside)."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    proved = dims_in_bounds(buffer_type, offsets, tile_shape)
    dims = tuple(d for d, inside in enumerate(proved) if not inside)
    return EdgeChecks(buffer, dims) if dims else None


def if_else(condition: SSAValue, then: Callable[[], None], otherwise: Callable[[], None]) -> None:
    then_block, else_block = Block(), Block()
    scf.IfOp(condition, [], Region(then_block), Region(else_block))
    for block, body in ((then_block, then), (else_block, otherwise)):
        with ImplicitBuilder(block):
            body()
            scf.YieldOp()


def zero(element_type: Attribute) -> SSAValue:
    if isinstance(element_type, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, element_type)).result
    return arith.ConstantOp(IntegerAttr(0, element_type)).result


# One memref.dim per kernel argument and dimension, at the kernel's entry, where it
# dominates every use (kernel -> (argument, dim) -> size).
_SIZES: weakref.WeakKeyDictionary[Operation, dict[tuple[SSAValue, int], SSAValue]] = (
    weakref.WeakKeyDictionary()
)


def _descriptor_size(buffer: SSAValue, dim: int) -> SSAValue:
    if not isinstance(buffer, BlockArgument) or buffer.block.parent_op() is None:
        return memref.DimOp(buffer, emit.const(dim)).result
    kernel = buffer.block.parent_op()
    assert kernel is not None
    sizes = _SIZES.setdefault(kernel, {})
    cached = sizes.get((buffer, dim))
    if cached is not None and cached.owner.parent is not None:  # type: ignore[union-attr]
        return cached
    # Built outside the current insertion point (the ImplicitBuilder would put them
    # where the access is): the size is read once, before everything else.
    index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
    size = memref.DimOp(buffer, index)
    for op in (index, size):
        if op.parent is not None:
            op.detach()
    Rewriter.insert_op([index, size], InsertPoint.at_start(buffer.block))
    sizes[(buffer, dim)] = size.result
    return size.result
