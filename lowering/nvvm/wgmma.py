"""``tile.gemm`` on ``wgmma`` (sm_90a): its shared A and B read through matrix
descriptors, its accumulator in wgmma's register layout (``layout.WarpgroupGrid``).

A gemm takes this path when its accumulator has the warpgroup layout (kernel.py
chose it: ``wgmma_forms.accumulator_warpgroups``) and both operands are shared tiles
a descriptor addresses (:func:`wgmma_forms`): whole tiles in the 32/64/128-byte
permutation ``swizzle.py`` gave them, starting at addresses aligned to their
pattern.  Otherwise the gemm runs ``mma.sync`` over the same layout (``gemm.py``):
each warp's m16n8 blocks are where wgmma would have put them.

Each warpgroup computes its 64-row slabs of C.  For every 16-wide step of K, one
``wgmma.mma_async .m64nNk16`` per slab and per N chunk (N up to 256), chained on the
accumulator; the sequence is opened by ``wgmma.fence`` (the accumulators were written
by ordinary instructions, all before it), closed by ``commit_group`` and retired by ``wait_group 0``
before the accumulators are stored back to their registers and before the gemm
ends -- so the shared operands are read by the time the gemm is done, which is what
sync insertion assumes of every tile op.  (A warp-specialized loop's gemm may stay
in flight into the next iteration instead: ``wgmma_in_flight.py``.)  The reads go
through the async proxy: ``thread-sync`` fences generic writes of the operands for
it (``hazards.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import BFloat16Type, IntegerAttr, i32, i64
from xdsl.ir import SSAValue

from tilepipe.dialects.nvvm import (
    WgmmaCommitGroupSyncAlignedOp,
    WgmmaFenceAlignedOp,
    WgmmaMmaAsyncOp,
    WgmmaType,
    WgmmaWaitGroupSyncOp,
)
from tilepipe.dialects.tile import GemmOp
from tilepipe.dialects.tile_base import constant_index

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm import wgmma_in_flight as in_flight
from tilepipe.lowering.nvvm.wgmma_accumulators import load_struct, store_struct
from tilepipe.lowering.nvvm.access import TileOperand
from tilepipe.lowering.nvvm.kernel import KernelContext
from tilepipe.lowering.nvvm.layout import (
    MMA_N,
    WARPGROUP_M,
    WARPGROUP_WARPS,
    MmaAccumulatorLayout,
    WarpgroupGrid,
)
from tilepipe.lowering.nvvm.wgmma_forms import UNIT, OperandForm, operand_form
from tilepipe.lowering.nvvm.wgmma_register_a import pack_a_registers, wgmma_register_a
from tilepipe.passes.cuda.warpgroup_mma import ATOM_ROWS, n_chunks

ADDRESS_MASK = (1 << 18) - 1  # the descriptor's 14 address bits, in 16-byte units


def wgmma_forms(
    op: GemmOp, context: KernelContext, a: TileOperand, b: TileOperand, c: TileOperand
) -> tuple[OperandForm | None, OperandForm, list[tuple[int, int]]] | None:
    """The descriptor forms of A (None: A from registers, ``wgmma_register_a.py``) and
    B and the N chunks of the instructions, when wgmma runs ``op``; else None."""
    wgmma = context.target.warpgroup_mma
    layout = c.layout
    if wgmma is None or not isinstance(layout, MmaAccumulatorLayout):
        return None
    if not isinstance(layout.grid, WarpgroupGrid):
        return None
    # A fragment not staged in shared memory: wgmma reads it from registers (form None).
    form_a = None if a.is_fragment else _form(a, op.transpose_a is None, context)
    form_b = _form(b, op.transpose_b is not None, context)
    if form_b is None or not (a.is_fragment or form_a and form_a.spans(WARPGROUP_M)):
        return None
    # An MN-major B in panels: each instruction starts at a panel.
    step = MMA_N if form_b.k_major or form_b.panels == 1 else form_b.panel_columns
    chunks = n_chunks(layout.grid.n, wgmma, step)
    if not chunks or not all(form_b.spans(width) for _, width in chunks):
        return None
    return form_a, form_b, chunks


def _form(operand: TileOperand, k_major: bool, context: KernelContext) -> OperandForm | None:
    """The operand's form: a whole shared tile in a descriptor's permutation,
    aligned to its pattern."""
    swizzle = operand.swizzle
    if operand.is_fragment or swizzle is None or operand.edges is not None:
        return None
    shape = operand.buffer_type.get_shape()
    if tuple(shape[-2:]) != tuple(operand.tile_shape):
        return None
    if any(constant_index(o) != 0 for o in operand.offsets[-2:]):
        return None
    form = operand_form(operand.buffer_type, k_major, swizzle.panels, swizzle.panel_columns)
    if form is None or _start_alignment(operand.buffer, context) % form.alignment:
        return None
    return form


def _start_alignment(buffer: SSAValue, context: KernelContext) -> int:
    """What the first byte of ``buffer`` (a chain of constant-offset views of the
    kernel's shared memory) is known to be aligned to."""
    offset = 0
    while isinstance(view := buffer.owner, memref.ViewOp):
        shift = constant_index(view.byte_shift)
        if shift is None:
            return 1
        offset += shift
        buffer = view.source
    base = context.shared_base_alignment
    return min(base, offset & -offset) if offset else base


def lower_on_wgmma(
    op: GemmOp,
    context: KernelContext,
    a: TileOperand,
    b: TileOperand,
    c: TileOperand,
    forms: tuple[OperandForm | None, OperandForm, list[tuple[int, int]]],
    k_extent: int,
) -> None:
    """``C += A[:, :k_extent] B[:k_extent, :]`` on wgmma (see the module doc)."""
    layout = c.layout
    assert isinstance(layout, MmaAccumulatorLayout) and isinstance(layout.grid, WarpgroupGrid)
    grid = layout.grid
    form_a, form_b, chunks = forms
    input_type = WgmmaType.BF16 if isinstance(a.element_type, BFloat16Type) else WgmmaType.F16
    wgmma = context.target.warpgroup_mma
    assert wgmma is not None

    def warpgroup_gemm() -> None:
        group_row = emit.mul(emit.div(context.ids.warp, WARPGROUP_WARPS), grid.warpgroup_m)
        base_a = None if form_a is None else _base_descriptor(a, form_a)
        base_b = _base_descriptor(b, form_b)
        slabs = range(grid.tiles_m)
        registers = {
            (slab, chunk): [
                layout.register_index(slab, first // MMA_N + i // 4, i % 4)
                for i in range(width // 2)
            ]
            for slab in slabs
            for chunk, (first, width) in enumerate(chunks)
        }
        if loop is None:
            accumulators = {key: load_struct(c, regs) for key, regs in registers.items()}
        else:  # carried through the loop (wgmma_in_flight.py)
            accumulators = dict(zip(registers, in_flight.enter(loop, c, list(registers.values()))))
        steps = k_extent // wgmma.k
        a_registers = None if form_a is not None else pack_a_registers(a, grid.tiles_m, steps)
        # After the accumulators' (and A's) last ordinary register writes (PTX: a
        # fence between those and the first wgmma that uses them).
        WgmmaFenceAlignedOp()
        for step in range(k_extent // wgmma.k):
            k0 = emit.const(step * wgmma.k)
            for slab in slabs:
                mn0 = emit.add(group_row, slab * WARPGROUP_M)
                descriptor_a = None if form_a is None else _descriptor(base_a, form_a, mn0, k0)
                for chunk, (first, width) in enumerate(chunks):
                    descriptor_b = _descriptor(base_b, form_b, emit.const(first), k0)
                    if a_registers is not None:
                        accumulators[slab, chunk] = wgmma_register_a(
                            accumulators[slab, chunk], a_registers[slab, step],
                            descriptor_b, width, input_type, form_b.k_major,
                        )
                        continue
                    accumulators[slab, chunk] = WgmmaMmaAsyncOp(
                        accumulators[slab, chunk], descriptor_a, descriptor_b, width,
                        input_type, form_a.k_major, form_b.k_major,
                    ).results_
        WgmmaCommitGroupSyncAlignedOp()
        if loop is not None:
            in_flight.leave(loop, [accumulators[key] for key in registers])
            return
        WgmmaWaitGroupSyncOp(0)
        for key, regs in registers.items():
            store_struct(accumulators[key], c, regs)

    # A's registers are not to be rewritten (the next iteration's A) until retired.
    loop = None if form_a is None else in_flight.in_flight_loop(
        op, c, context, grid.has_idle_warps, k_extent == op.mnk[2]
    )
    grid.if_active(context.ids.warp, warpgroup_gemm)


def _i32(value: int) -> SSAValue:
    return arith.ConstantOp(IntegerAttr(value, i32)).result


def _i64(value: int) -> SSAValue:
    """An i64 constant (the descriptor's top bits as the signed value of its bits)."""
    if value >= 1 << 63:
        value -= 1 << 64
    return arith.ConstantOp(IntegerAttr(value, i64)).result


@dataclass(frozen=True)
class _BaseDescriptor:
    """A descriptor of an operand's tile origin as its two 32-bit words: the low one
    (start address, LBO) computed, the high one (SBO, swizzle mode) a constant.  An
    instruction's descriptor adds its offset to the low word only: the address field
    (bits 0-13) of a shared address plus an offset inside the tile stays below 2^14,
    so the 64-bit sum never carries into bit 14 and beyond -- and 32-bit adds keep
    the descriptor arithmetic off ptxas's 64-bit add-with-carry pairs."""

    low: SSAValue  # i32
    high_word: int


def _base_descriptor(operand: TileOperand, form: OperandForm) -> _BaseDescriptor:
    """The descriptor of the operand's tile origin (its slot's first byte)."""
    shape = operand.buffer_type.get_shape()
    slot_bytes = shape[-1] * shape[-2] * 2
    lead = len(shape) - 2
    linear = emit.const(0)
    stride = slot_bytes
    for dim in reversed(range(lead)):
        linear = emit.add(linear, emit.mul(operand.offsets[dim], stride))
        stride *= shape[dim]
    base = memref.ExtractAlignedPointerAsIndexOp.get(operand.buffer).aligned_pointer
    address = arith.IndexCastOp(emit.add(base, linear), i32).result
    field = arith.DivUIOp(arith.AndIOp(address, _i32(ADDRESS_MASK)).result, _i32(UNIT)).result
    low = arith.OrIOp(field, _i32((form.leading_bytes // UNIT) << 16)).result
    return _BaseDescriptor(low, (form.stride_bytes // UNIT) | form.mode << 30)


def _descriptor(base: _BaseDescriptor, form: OperandForm, mn0: SSAValue, k0: SSAValue) -> SSAValue:
    """The descriptor of the instruction's operand at M (or N) ``mn0``, K ``k0``:
    the base plus the offset of that element in the stored tile (in units)."""
    row, col = (mn0, k0) if form.k_major else (k0, mn0)
    offset = emit.add(
        emit.add(
            emit.mul(emit.div(col, form.panel_columns), form.panel_bytes),
            emit.mul(row, form.swizzle),
        ),
        emit.mul(emit.rem(col, form.panel_columns), 2),
    )
    assert constant_index(row) is None or constant_index(row) % ATOM_ROWS == 0
    units = arith.IndexCastOp(emit.div(offset, UNIT), i32).result
    low = arith.ExtUIOp(arith.AddiOp(base.low, units).result, i64).result
    return arith.OrIOp(low, _i64(base.high_word << 32)).result
