"""``wgmma`` with A from registers (sm_90a): ``P V`` of attention with P in registers.

A ``tile.gemm`` whose A is a register fragment in wgmma's accumulator layout over the
warpgroups and rows of its C (``wgmma_forms.reads_a_from_registers``; the fragment a
cast of an accumulator takes, ``P = cast(S)``) runs on wgmma with A read from the
thread's registers and B through its descriptor, as FlashAttention-3 and TileLang do.

PTX ISA, "Register Fragments" of ``wgmma .m64nNk16``: A is four ``.f16x2`` (or
``.bf16x2``) registers ``a0..a7``; warp ``q`` of the warpgroup holds rows ``16 q ..
16 q + 15``, lane ``l`` rows ``l / 4`` (a0, a1, a4, a5) and ``l / 4 + 8`` (a2, a3, a6,
a7), columns ``2 (l % 4) + i % 2`` plus 8 for a4..a7.  That is the accumulator D's
layout restricted to 16 columns: for k-step ``j`` of a slab the thread's a0..a7 are
its D-layout registers ``8 j .. 8 j + 7`` (register ``i`` of D: row ``l / 4 + 8 ((i %
4) / 2)``, column ``8 (i / 4) + 2 (l % 4) + i % 2``), packed two by two, the lower
register in the lower half -- in the fragment's registers, the 16x8 blocks ``2 j``
and ``2 j + 1`` of the slab (``MmaAccumulatorLayout.register_index``).

Upstream MLIR 22's ``nvvm.wgmma.mma_async`` takes descriptors only, so the
instruction is an ``llvm.inline_asm`` (as upstream lowers its own op): the
accumulator fields tied in and out, returned as the same ``accumulator_struct`` the
descriptor form returns, so that fence, commit, wait and the accumulator's loads and
stores are ``wgmma.py``'s.  The A registers are packed before ``wgmma.fence`` (PTX: a
fence between a wgmma's register operands' writes and the wgmma), and left alone
until the ``wait_group`` retiring the group.

Where no descriptor addresses B (``wgmma.py`` finds none) the gemm runs mma.sync over
the same layout, its A fragments again taken from the registers: per warp the m16n8k16
A fragment is the same eight registers (``register_fragment``).
"""

from __future__ import annotations

from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import DenseArrayBase, VectorType, f32, i32, i64
from xdsl.ir import SSAValue

from tilepipe.dialects.nvvm import WgmmaType
from tilepipe.dialects.nvvm_wgmma import accumulator_struct

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand
from tilepipe.lowering.nvvm.layout import MMA_K, MMA_N, MmaAccumulatorLayout

assert MMA_K == 2 * MMA_N  # a k-step's A is two 8-column blocks of the layout

A_REGISTERS = 4  # .b32 registers of A per thread and k16 step


def wgmma_register_a_asm(n: int, input_type: WgmmaType, b_k_major: bool) -> tuple[str, str]:
    """The PTX and the constraints of one ``wgmma.mma_async .m64nNk16`` with A in
    registers: operands ``$0 .. $(n/2 - 1)`` the f32 accumulator out, then the four A
    registers, B's descriptor, and the accumulator in (tied to the outputs).  scale-d is
    true (D = A B + D); the input scales 1; B transposed (imm-trans-b) when MN-major."""
    fields = n // 2
    d = ", ".join(f"${i}" for i in range(fields))
    a = ", ".join(f"${fields + i}" for i in range(A_REGISTERS))
    b = f"${fields + A_REGISTERS}"
    kind = str(input_type)
    asm = (
        "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
        f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{kind}.{kind} "
        f"{{{d}}}, {{{a}}}, {b}, p, 1, 1, {0 if b_k_major else 1};\n}}\n"
    )
    constraints = ",".join(
        ["=f"] * fields + ["r"] * A_REGISTERS + ["l"] + [str(i) for i in range(fields)]
    )
    return asm, constraints


def wgmma_register_a(
    accumulator: SSAValue,
    a_registers: list[SSAValue],
    descriptor_b: SSAValue,
    n: int,
    input_type: WgmmaType,
    b_k_major: bool,
) -> SSAValue:
    """``D += A B`` for one 64-row slab, N chunk and k-step: the accumulator struct of
    the result."""
    struct = accumulator_struct(n)
    fields = [
        llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), accumulator, f32).res
        for i in range(n // 2)
    ]
    asm, constraints = wgmma_register_a_asm(n, input_type, b_k_major)
    op = llvm.InlineAsmOp(
        asm, constraints, [*a_registers, descriptor_b, *fields], [struct], has_side_effects=True
    )
    assert op.res is not None
    return op.res


def pack_a_registers(
    a: TileOperand, slabs: int, steps: int
) -> dict[tuple[int, int], list[SSAValue]]:
    """The four .b32 A registers of every (slab, k-step), packed from A's fragment
    (emitted here: before the wgmma fence)."""
    return {
        (slab, step): [
            llvm.BitcastOp(pair, i32).result
            for pair in _register_pairs(a, slab, emit.const(step * MMA_K))
        ]
        for slab in range(slabs)
        for step in range(steps)
    }


def _register_pairs(a: TileOperand, slab: int, k0: SSAValue) -> list[SSAValue]:
    """The four ``vector<2xT>`` register pairs a0a1, a2a3, a4a5, a6a7 of the thread's
    A fragment of its block ``slab`` and the k-step at column ``k0``: registers 0-1,
    2-3 of the layout's 16x8 block ``k0 / 8``, then of the next block."""
    layout = a.layout
    assert isinstance(layout, MmaAccumulatorLayout)
    block = emit.add(emit.div(k0, MMA_N), slab * layout.grid.tiles_n)
    return [
        emit.vector_load(a.buffer, [emit.add(emit.mul(emit.add(block, column_block), 4), 2 * half)], 2)
        for column_block in range(2)
        for half in range(2)
    ]


def register_fragment(a: TileOperand, slab: int, k0: SSAValue, bf16: bool) -> SSAValue | list[SSAValue]:
    """mma.sync's m16n8k16 A fragment of the warp's block ``slab`` at K ``k0``, from A's
    registers, for the mma.sync path over the warpgroup layout (no descriptor for B):
    f16 a ``vector<4x2xf16>`` (``nvgpu.mma.sync``), bf16 four .b32 (``nvvm.mma.sync``)."""
    pairs = _register_pairs(a, slab, k0)
    if bf16:
        return [llvm.BitcastOp(pair, i32).result for pair in pairs]
    fragment = emit.float_zeros(VectorType(a.element_type, [4, 2]))
    for row, pair in enumerate(pairs):
        fragment = vector.InsertOp(pair, fragment, [row]).result
    return fragment
