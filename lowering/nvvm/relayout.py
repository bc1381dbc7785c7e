"""Fragment operands a tile op cannot run on in place: through a scratch tile in shared memory.

A tile op runs all its fragment operands in one layout: each thread computes the
elements it owns, on the same registers of every operand.  That needs every fragment
operand to be accessed whole (its layout's shape is the op's tile, at offset 0) and in
one layout.  Otherwise -- a fragment of another layout (a tensor-core accumulator's mma layout
beside a fragment dealt out element by element), a part of a fragment (``%F[%c16, %c0]`` of a 32-row fragment, or one row
of it), or a broadcast whose source is a fragment (every thread reads elements others
own) -- the operand crosses threads through shared memory:

* read: every thread stores its registers of the operand's region into a scratch tile
  of the op's shape, the block meets at ``bar.sync 0``, and the op reads the scratch;
* written: the op writes the scratch tile, the block meets, and every thread loads its
  registers of the region back.

A barrier is placed only where an element of a scratch tile changes threads (the
layouts' owners, compared at compile time for every place run-time offsets may put the
region): where each thread reads back only what it stored, its program order is enough.
In a loop the block meets once more after the op, before the next iteration writes the
scratch tiles again.  The op runs in the layout of its destination when that is a
fragment accessed whole (the result stays where the program keeps it), else of its first
such source, else in cooperative chunks.  Each converted operand has a scratch tile of
its own, placed after the kernel's other shared buffers (not reused, so that no other
access needs ordering against it); they count against the target's shared memory.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tilepipe.dialects import nvvm
from tilepipe.dialects.tile import ElementMapping, ReduceOp, TileOp, constant_index
from tilepipe.dialects.tile_base import chunk_elements, element_bytes

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.fragment_slots import slot_rank
from tilepipe.lowering.nvvm.layout import FragmentLayout, ThreadIds

SHARED_ADDRESS_SPACE = IntegerAttr(3, i64)
SCRATCH_ALIGNMENT = 16


@dataclass(frozen=True)
class Relayout:
    """Operand ``role`` of ``op`` goes through the scratch tile at ``offset`` bytes
    into shared memory."""

    op: TileOp
    role: str
    offset: int
    tile_type: MemRefType  # the scratch tile, in shared memory
    crosses_threads: bool  # does an element of the scratch tile change threads?


def _whole(op: TileOp, role: str, buffer: SSAValue, offsets, layout: FragmentLayout) -> bool:
    """Does ``op`` access fragment ``buffer`` as a whole tile of its layout?"""
    lead = slot_rank(buffer)
    return tuple(layout.shape) == op.operand_tile_shape(role) and all(
        constant_index(o) == 0 for o in tuple(offsets)[lead:]
    )


def _iteration_owners(op: TileOp, anchor: FragmentLayout | None, threads: int) -> np.ndarray:
    """The thread that computes each element of ``op``'s tile: the anchor layout's
    owner, else cooperative chunks (layout.py, as ``for_each_run`` deals them)."""
    if anchor is not None:
        return anchor.owners()
    shape = op.tile_shape
    chunk = chunk_elements(shape, op.element_type("dst"))
    return ((np.arange(math.prod(shape)) // chunk) % threads).reshape(shape)


MAX_REGION_POSITIONS = 64
"""Run-time region offsets: the positions checked one by one, up to this many."""


def _crosses_threads(
    layout: FragmentLayout,
    offsets: Sequence[SSAValue],
    tile_shape: Sequence[int],
    iteration: np.ndarray,
) -> bool:
    """Is some element of the region held by another thread than the one that computes
    it (for every place run-time offsets may put the region)?  If not, each thread
    reads back only what it stored itself, and its program order is all the order the
    scratch tile needs."""
    owners = layout.owners()
    lead = len(layout.shape) - len(tile_shape)
    extents = [1] * lead + list(tile_shape)
    choices = []
    for dim, (extent, size) in enumerate(zip(extents, layout.shape)):
        value = constant_index(offsets[dim]) if offsets else 0
        choices.append([value] if value is not None else range(size - extent + 1))
    if math.prod(len(c) for c in choices) > MAX_REGION_POSITIONS:
        return True
    for position in itertools.product(*choices):
        region = tuple(
            p if d < lead else slice(p, p + extents[d]) for d, p in enumerate(position)
        )
        if (owners[region] != iteration.reshape(owners[region].shape)).any():
            return True
    return False


def plan_relayouts(
    kernel: func.FuncOp, layouts: dict[SSAValue, FragmentLayout], shared_bytes: int,
    threads: int,
) -> tuple[list[Relayout], int]:
    """The operands that go through shared memory, their scratch tiles placed from
    ``shared_bytes`` on, and the shared bytes with them."""
    relayouts: list[Relayout] = []
    total = shared_bytes
    for op in kernel.walk():
        # A gemm's accumulator and a fragment reduction's source have lowerings of
        # their own (gemm.py, reduce.py).
        if not isinstance(op, TileOp) or isinstance(op, ReduceOp):
            continue
        if op.ELEMENT_MAPPING is ElementMapping.WARP_TILED:
            continue
        fragments = [(r, b, o) for r, b, o in op.tile_regions() if b in layouts]
        in_place = [
            (r, layouts[b])
            for r, b, o in fragments
            if r not in op.ROLES_READ_BY_ALL_THREADS and _whole(op, r, b, o, layouts[b])
        ]
        anchor = dict(in_place).get("dst", in_place[0][1] if in_place else None)
        for role, buffer, offsets in fragments:
            if (role, anchor) in in_place:
                continue
            element_type = buffer.type.element_type
            tile_type = MemRefType(
                element_type, op.operand_tile_shape(role), memory_space=SHARED_ADDRESS_SPACE
            )
            crosses = role in op.ROLES_READ_BY_ALL_THREADS or _crosses_threads(
                layouts[buffer], offsets[slot_rank(buffer):], op.operand_tile_shape(role),
                _iteration_owners(op, anchor, threads),
            )
            total = -(-total // SCRATCH_ALIGNMENT) * SCRATCH_ALIGNMENT
            relayouts.append(Relayout(op, role, total, tile_type, crosses))
            total += tile_type.element_count() * element_bytes(element_type)
    return relayouts, total


def _in_a_loop(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent.name != "gpu.func":
        if isinstance(parent, scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


FragmentOf = Callable[[TileOp, str], tuple[SSAValue, tuple[SSAValue, ...], FragmentLayout]]
"""``fragment_of(op, role)``: the registers (alloca) of a fragment operand, its offsets
into the fragment's tile and the layout."""


def _for_each_in_region(
    ids: ThreadIds,
    layout: FragmentLayout,
    offsets: Sequence[SSAValue],
    tile_shape: Sequence[int],
    body: Callable[[SSAValue, list[SSAValue]], None],
) -> None:
    """``body(register, tile coordinates)`` for the thread's elements of the region
    at ``offsets`` (leading offsets beyond the tile's rank pick one index)."""
    lead = len(layout.shape) - len(tile_shape)
    offsets = list(offsets) or [emit.const(0)] * len(layout.shape)
    whole = lead == 0 and tuple(layout.shape) == tuple(tile_shape) and all(
        constant_index(o) == 0 for o in offsets
    )

    def element(register: SSAValue, coords: list[SSAValue]) -> None:
        if whole:
            body(register, coords)
            return
        inside: SSAValue | None = None
        for dim, (coord, offset) in enumerate(zip(coords, offsets)):
            if dim < lead:
                tests = [arith.CmpiOp(coord, offset, "eq").result]
            else:
                extent = tile_shape[dim - lead]
                tests = [
                    arith.CmpiOp(coord, offset, "uge").result,
                    arith.CmpiOp(coord, emit.add(offset, extent), "ult").result,
                ]
            for test in tests:
                inside = test if inside is None else arith.AndIOp(inside, test).result
        assert inside is not None
        tile_coords = [
            arith.SubiOp(c, o).result for c, o in zip(coords[lead:], offsets[lead:])
        ]
        emit.if_then(inside, lambda: body(register, tile_coords))

    layout.for_each(ids, element)


def stage_relayouts(
    relayouts: list[Relayout],
    shared_base: SSAValue | None,
    ids: ThreadIds,
    fragment_of: FragmentOf,
    relaid: dict[tuple[Operation, str], SSAValue],
) -> None:
    """Around each op of ``relayouts``: the reads' stores into their scratch tiles and
    a barrier before it; a barrier and the writes' loads back after it; in a loop, a
    barrier after all.  ``relaid[op, role]`` is the scratch tile the op then uses."""
    by_op: dict[TileOp, list[Relayout]] = {}
    for relayout in relayouts:
        by_op.setdefault(relayout.op, []).append(relayout)
    for op, converted in by_op.items():
        assert shared_base is not None
        reads, writes = [], []
        with ImplicitBuilder(Builder(InsertPoint.before(op))), emit.located_before(op):
            for relayout in converted:
                view = memref.ViewOp(
                    shared_base, emit.const(relayout.offset), [], relayout.tile_type
                ).results[0]
                relaid[(op, relayout.role)] = view
                read, written = op.reads_and_writes(relayout.role)
                (writes if written else reads).append((relayout, view))
            for relayout, view in reads:
                storage, offsets, layout = fragment_of(op, relayout.role)
                _for_each_in_region(
                    ids, layout, offsets, relayout.tile_type.get_shape(),
                    lambda reg, at, s=storage, v=view: emit.store(emit.load(s, [reg]), v, at),
                )
            if any(r.crosses_threads for r, _ in reads):  # others' stores are visible
                nvvm.Barrier0Op()
        after = op.next_op
        assert after is not None  # a tile op is never a block's terminator
        with ImplicitBuilder(Builder(InsertPoint.before(after))):
            if any(r.crosses_threads for r, _ in writes):  # the op's stores are visible
                nvvm.Barrier0Op()
            for relayout, view in writes:
                storage, offsets, layout = fragment_of(op, relayout.role)
                _for_each_in_region(
                    ids, layout, offsets, relayout.tile_type.get_shape(),
                    lambda reg, at, s=storage, v=view: emit.store(emit.load(v, at), s, [reg]),
                )
            read_barrier = any(r.crosses_threads for r, _ in reads)
            write_barrier = any(r.crosses_threads for r, _ in writes)
            if _in_a_loop(op) and read_barrier != write_barrier:
                # Every thread is done with the tiles before the next iteration
                # rewrites them.  With both barriers that is already so: the one
                # after the op orders its reads before the next stores in, the one
                # before it orders the loads back before the next op's stores.
                nvvm.Barrier0Op()
        current = op.next_op
        while current is not after:
            assert current is not None
            for inner in current.walk():
                inner.location = op.location
            current = current.next_op
