"""Per-thread element access for the tile-op lowerings.

A :class:`TileOperand` is one buffer region of a tile op after the kernel skeleton was
built: a global or shared memref addressed by tile coordinates, or a register fragment
(``memref.alloca`` of the thread's registers) addressed by register index.
:func:`for_each_run` runs a body for every run of consecutive elements the executing
thread owns -- under the fragments' layout when the op touches a fragment, else in
cooperative chunks -- as wide as one aligned vector access of every operand allows;
:func:`for_each_element` visits them one at a time.  :func:`with_interior_fast_path`
lowers an op whose global regions may leave their arrays twice, behind a run-time test
that they lie wholly inside: unpredicated there, predicated at the edges.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import MemRefType, NoneAttr, VectorType
from xdsl.ir import Attribute, SSAValue

from tilepipe.dialects.tile import TileOp
from tilepipe.dialects.tile_base import chunk_elements
from tilepipe.core.diagnostics import op_error

from tilepipe.passes.analysis.divisibility import provable_vector_width

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.boundary import EdgeChecks, edge_checks, if_else
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.layout import FragmentLayout, for_each_chunk
from tilepipe.lowering.nvvm.swizzle import SharedSwizzle


@dataclass(frozen=True)
class TileOperand:
    role: str
    buffer: SSAValue
    offsets: tuple[SSAValue, ...]
    tile_shape: tuple[int, ...]
    layout: FragmentLayout | None  # set for register fragments
    swizzle: SharedSwizzle | None = None  # set for swizzled shared tiles
    edges: EdgeChecks | None = None  # set for global regions that may leave the array

    @property
    def buffer_type(self) -> MemRefType:
        assert isinstance(self.buffer.type, MemRefType)
        return self.buffer.type

    @property
    def element_type(self) -> Attribute:
        return self.buffer_type.element_type

    @property
    def is_fragment(self) -> bool:
        return self.layout is not None

    def indices(self, coords: Sequence[SSAValue]) -> list[SSAValue]:
        """Buffer indices of tile element ``coords`` (leading dims: the offsets)."""
        rank = len(self.buffer_type.get_shape())
        lead = rank - len(coords)
        offsets = self.offsets or tuple(emit.const(0) for _ in range(rank))
        indices = [*offsets[:lead], *(emit.add(o, c) for o, c in zip(offsets[lead:], coords))]
        if self.swizzle is not None:
            indices[-2], indices[-1] = self.swizzle.position(indices[-2], indices[-1])
        return indices

    def load(self, coords: Sequence[SSAValue], register: SSAValue | None) -> SSAValue:
        if self.is_fragment:
            assert register is not None
            return emit.load(self.buffer, [register])
        if self.edges is not None:
            return self.edges.load(self.indices(coords))
        return emit.load(self.buffer, self.indices(coords))

    def store(
        self, value: SSAValue, coords: Sequence[SSAValue], register: SSAValue | None
    ) -> None:
        if self.is_fragment:
            assert register is not None
            emit.store(value, self.buffer, [register])
        elif self.edges is not None:
            self.edges.store(value, self.indices(coords))
        else:
            emit.store(value, self.buffer, self.indices(coords))

    def load_run(
        self, coords: Sequence[SSAValue], register: SSAValue | None, width: int
    ) -> SSAValue:
        """``width`` consecutive elements from ``coords`` (or ``register``): a scalar
        for one, else one aligned ``vector<width x T>`` load."""
        if width == 1:
            return self.load(coords, register)
        if self.is_fragment:
            assert register is not None
            return emit.vector_load(self.buffer, [register], width)
        if self.edges is not None:
            return self.edges.load(self.indices(coords), width)
        return emit.vector_load(self.buffer, self.indices(coords), width)

    def store_run(
        self, value: SSAValue, coords: Sequence[SSAValue], register: SSAValue | None
    ) -> None:
        if not isinstance(value.type, VectorType):
            self.store(value, coords, register)
        elif self.is_fragment:
            assert register is not None
            emit.vector_store(value, self.buffer, [register])
        elif self.edges is not None:
            self.edges.store(value, self.indices(coords))
        else:
            emit.vector_store(value, self.buffer, self.indices(coords))

    def region_view(self) -> TileOperand:
        """This global region as a view of its own: ``memref.subview`` of the buffer
        at the region's offsets, indexed by tile coordinates alone.

        Upstream then forms an address as ``(view base) + (tile coordinates)``: the
        region's origin (what changes from one k-iteration to the next) and the
        thread's place in the tile (what does not) stay apart, so the machine code
        adds one per-iteration base to loop-invariant thread offsets instead of
        recomputing ``(k_offset + row) * stride`` for every chunk.  Only for a region
        proven inside its array (a view must lie inside it) of the buffer's rank;
        other operands are returned unchanged."""
        rank = len(self.buffer_type.get_shape())
        if (
            self.is_fragment
            or self.edges is not None
            or not isinstance(self.buffer_type.memory_space, NoneAttr)
            or self.buffer_type.get_strides() is None  # a layout a view cannot express
            or len(self.offsets) != rank
            or len(self.tile_shape) != rank
        ):
            return self
        # Constant offsets are static (the view's type then carries its offset).
        offsets = [
            o if (value := emit.constant_index(o)) is None else value for o in self.offsets
        ]
        sizes, strides = list(self.tile_shape), [1] * rank
        view_type = memref.SubviewOp.infer_result_type(
            self.buffer_type, offsets, sizes, strides
        )
        view = memref.SubviewOp.get(self.buffer, offsets, sizes, strides, view_type).result
        return replace(self, buffer=view, offsets=())

    def interior(self) -> TileOperand:
        """This operand in a block whose region is known (by a run-time test) to lie
        wholly inside its array: accessed as if proven in bounds."""
        return replace(self, edges=None)

    def vector_aligned(self, width: int) -> bool:
        """Can ``width`` consecutive tile elements be one aligned vector access?

        Needs a row of a multiple of ``width`` elements whose every start is provably
        a multiple of ``width`` (``divisibility.provable_vector_width``: the innermost
        offset and the row stride); buffer bases are assumed 16-byte aligned
        (cudaMalloc gives 256 bytes, the shared layout 16, register fragments are
        16-byte aligned allocas).  A fragment is accessed in the runs its layout
        deals out, which start at multiples of their width.
        """
        if self.is_fragment or width == 1:
            return True
        if self.swizzle is not None and not self.swizzle.keeps_together(width, self.element_type):
            return False
        return provable_vector_width(self.buffer, self.offsets, width, width) == width

    def vector_accessible(self, width: int) -> bool:
        """May ``width`` consecutive elements be one ``vector.load``/``store``?
        Aligned, and in a global region that may leave its array, wholly inside or
        wholly outside it, under one predicate (``boundary.py``)."""
        if width == 1:
            return True
        edges_allow = self.edges is None or self.edges.whole_runs(width)
        return edges_allow and self.vector_aligned(width)


def fragment_storage(
    op: TileOp, role: str, buffer: SSAValue, offsets: Sequence[SSAValue], context: KernelContext
) -> tuple[SSAValue, tuple[SSAValue, ...], FragmentLayout | None]:
    """The registers ``op`` touches as ``role`` (a fragment's alloca, the alloca of the
    slot its offsets pick, or a staging alloca: ``fragment_slots.py``), the offsets
    left, and the layout (None: not a fragment)."""
    slotted = context.slotted.get(buffer)
    if slotted is None:
        return buffer, tuple(offsets), context.fragments.get(buffer)
    lead = len(slotted.slots)
    staged = context.staged.get((op, role))
    if staged is not None:  # picked at run time
        buffer = staged
    else:
        buffer = slotted.slot_storage(offsets[:lead], op) if offsets else slotted.storage[0]
    return buffer, tuple(offsets[lead:]), slotted.layout


def tile_operands(op: TileOp, context: KernelContext) -> dict[str, TileOperand]:
    operands: dict[str, TileOperand] = {}
    for role, buffer, offsets in op.tile_regions():
        shape = op.operand_tile_shape(role)
        scratch = context.relaid.get((op, role))
        if scratch is not None:  # a fragment of another layout, through shared memory
            operands[role] = TileOperand(role, scratch, (), shape, None)
            continue
        buffer, offsets, layout = fragment_storage(op, role, buffer, offsets, context)
        if layout is not None and any(emit.constant_index(o) != 0 for o in offsets):
            raise op_error(
                op, f"{role}: register fragments are accessed as a whole (no offsets)"
            )
        global_region = layout is None and isinstance(buffer.type.memory_space, NoneAttr)
        operands[role] = TileOperand(
            role,
            buffer,
            tuple(offsets),
            shape,
            layout,
            context.swizzles.get(buffer),
            edge_checks(buffer, offsets, shape) if global_region else None,
        )
    return operands


Operands = Mapping[str, TileOperand]


def with_interior_fast_path(operands: Operands, lower: Callable[[Operands], None]) -> None:
    """Emit ``lower(operands)``; when a global region may leave its array, as
    ``scf.if`` (every such region wholly inside) ``{ lower(unchecked operands) }
    else { lower(operands) }``.

    Only blocks at an array's edge pay for the per-element predicates: the others take
    the path of a region proven in bounds -- unpredicated accesses, vectors as wide as
    alignment alone allows (``vector_aligned``; ``whole_runs`` no longer limits them).
    The test (``EdgeChecks.region_inside``) reads only the tile-level offsets, so it is
    uniform over the block and the threads do not diverge; either branch is correct
    for every thread anyway, so it decides speed, never results.  Nothing changes for
    an op whose regions are all proven inside (the static fast path)."""
    edged = [o for o in operands.values() if o.edges is not None]
    if not edged:
        lower(operands)
        return
    inside: SSAValue | None = None
    for operand in edged:
        assert operand.edges is not None
        region = operand.edges.region_inside(operand.offsets, operand.tile_shape)
        inside = region if inside is None else arith.AndIOp(inside, region).result
    assert inside is not None
    interior = {role: operand.interior() for role, operand in operands.items()}
    if_else(inside, lambda: lower(interior), lambda: lower(operands))


ElementVisitor = Callable[[list[SSAValue], SSAValue | None], None]
"""``visit(tile coordinates, register index or None)``"""

RunVisitor = Callable[[list[SSAValue], SSAValue | None, int], None]
"""``visit(first element's tile coordinates, first register or None, width)``"""


def iteration_layout(
    op: TileOp, operands: Sequence[TileOperand], shape: Sequence[int]
) -> FragmentLayout | None:
    """The fragment layout all fragment operands share (None: no fragment operand)."""
    layouts = {o.layout for o in operands if o.layout is not None}
    if not layouts:
        return None
    if len(layouts) > 1:
        raise op_error(
            op, "its register fragments have different layouts; copy one through "
            "shared memory first"
        )
    (layout,) = layouts
    if tuple(layout.shape) != tuple(shape):
        raise op_error(
            op,
            f"a {'x'.join(map(str, layout.shape))} register fragment is touched by a "
            f"{'x'.join(map(str, shape))} tile",
        )
    return layout


def for_each_run(
    op: TileOp,
    context: KernelContext,
    operands: Sequence[TileOperand],
    shape: Sequence[int],
    element_type: Attribute,
    visit: RunVisitor,
    max_width: int = 16,
) -> None:
    """Visit every run of consecutive elements of a ``shape`` tile that the executing
    thread owns, each as wide as every operand can access it with one aligned vector
    (at most ``max_width``; runs of one are visited with scalars)."""
    layout = iteration_layout(op, operands, shape)
    if layout is not None:
        runs_of_two = max_width >= 2 and all(o.vector_accessible(2) for o in operands)
        layout.for_each_run(
            context.ids,
            lambda register, coords, width: visit(coords, register, width),
            2 if runs_of_two else 1,
        )
        return
    chunk = chunk_elements(shape, element_type)
    vectorized = chunk <= max_width and all(o.vector_accessible(chunk) for o in operands)

    def visit_chunk(coords: list[SSAValue]) -> None:
        if vectorized:
            visit(coords, None, chunk)
            return
        for element in range(chunk):
            visit([*coords[:-1], emit.add(coords[-1], element)], None, 1)

    for_each_chunk(context.ids, shape, chunk, visit_chunk)


def for_each_element(
    op: TileOp,
    context: KernelContext,
    operands: Sequence[TileOperand],
    shape: Sequence[int],
    element_type: Attribute,
    visit: ElementVisitor,
) -> None:
    """Visit every element of a ``shape`` tile that the executing thread owns."""
    for_each_run(
        op,
        context,
        operands,
        shape,
        element_type,
        lambda coords, register, width: visit(coords, register),
        max_width=1,
    )
