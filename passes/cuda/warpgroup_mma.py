"""Which tile-level gemms run on ``wgmma`` (sm_90a): shared by ``thread-sync``, for
which such a gemm reads its shared operands through the async proxy
(``access_entries``), and by ``lower-to-nvvm``, which gives its accumulator the
warpgroup layout and emits it (``lowering/nvvm/wgmma*.py``).

The question is decided here from what the tile level states -- the target, the
input types, the operands' memory spaces and row lengths, the tile shape and the
block's threads -- so that the two passes agree.  The lowering can still find that a
descriptor cannot address an operand (its permutation or alignment); it then runs
``mma.sync`` over the same layout and fences its generic reads for the async proxy
itself, which keeps what ``thread-sync`` assumed true.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BFloat16Type, Float16Type, IntegerAttr, MemRefType
from xdsl.ir import Attribute, Operation, SSAValue

from tilepipe.core.targets import CudaTarget, UnknownTarget, WarpgroupMma, target_of
from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline_sync import BulkCopyOp
from tilepipe.dialects.tile import CopyOp, GemmOp
from tilepipe.dialects.tile_base import ElementMapping, TileOp

WARPGROUP_MMA_ATTR = "tile.warpgroup_mma"
SWIZZLE_MODES = {128: 1, 64: 2, 32: 3}  # descriptor bits 62-63 by swizzle bytes
ATOM_ROWS = 8
ELEMENT_BYTES = 2  # wgmma's shared operands here: f16 or bf16


def wgmma_inputs(target: CudaTarget, element_type: Attribute) -> WarpgroupMma | None:
    """The target's wgmma for gemm inputs of ``element_type``, if it has one."""
    wgmma = target.warpgroup_mma
    if wgmma is None or not isinstance(element_type, Float16Type | BFloat16Type):
        return None
    return wgmma if str(element_type) in wgmma.inputs else None


def warpgroups_for(m: int, n: int, threads: int, wgmma: WarpgroupMma) -> int:
    """The warpgroups that share an ``m x n`` accumulator (each whole 64-row slabs of
    it), at most as many as the block has; 0 when wgmma cannot hold it."""
    groups = threads // wgmma.warpgroup_threads
    if m % wgmma.m or n % wgmma.n_step or groups == 0:
        return 0
    for count in range(min(groups, m // wgmma.m), 0, -1):
        if m % (count * wgmma.m) == 0:
            return count
    return 0


def n_chunks(n: int, wgmma: WarpgroupMma, step: int) -> list[tuple[int, int]]:
    """``(first column, width)`` of the instructions covering ``n`` columns: equal
    widths of at most ``max_n``, each a multiple of ``step``."""
    for count in range(-(-n // wgmma.max_n), n // wgmma.n_step + 1):
        width = n // count
        if n % count == 0 and width % step == 0 and width <= wgmma.max_n:
            return [(i * width, width) for i in range(count)]
    return []


def shared_tile_candidate(buffer: SSAValue) -> bool:
    """Could shared tile ``buffer`` have a descriptor form: rows of 32, 64 or 128
    bytes (``swizzle.py``'s permutations of those are the hardware's), or a multiple
    of 128 that tensor-map copies land in 128-byte panels?  What the accumulator
    layout is chosen by, before the lowering knows the permutations."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    shape = buffer_type.get_shape()
    if len(shape) < 2 or shape[-2] % ATOM_ROWS:
        return False
    row_bytes = shape[-1] * ELEMENT_BYTES
    if row_bytes in SWIZZLE_MODES:
        return True
    return row_bytes % 128 == 0 and any(
        _lands_in_panels(use.operation, buffer) for use in buffer.uses
    )


def _lands_in_panels(op: Operation, buffer: SSAValue) -> bool:
    """Is ``op`` a tensor-map copy into ``buffer``, or a copy that ``warp-specialize``
    (which runs before ``tma-copy``) is to make one: its box is a tensor map's?"""
    if isinstance(op, BulkCopyOp):
        return op.is_tensor_copy and op.dst == buffer
    if isinstance(op, CopyOp) and op.dst == buffer:
        from tilepipe.passes.cuda.tensor_map import tensor_box

        return not isinstance(tensor_box(op), str)
    return False


def operand_swizzle(buffer: SSAValue) -> int:
    """The swizzle bytes of a candidate operand's atoms (its rows, or 128-byte
    panels)."""
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    return min(buffer_type.get_shape()[-1] * ELEMENT_BYTES, 128)


def accumulator_warpgroups(
    gemm: GemmOp, target: CudaTarget, threads: int, seen: frozenset[GemmOp] = frozenset()
) -> int:
    """How many warpgroups hold ``gemm``'s accumulator in wgmma's layout: its inputs
    are wgmma's, A and B shared tiles a descriptor may address, C whole 64-row slabs
    of a width the instructions cover; 0 otherwise (the mma.sync layouts)."""
    wgmma = wgmma_inputs(target, gemm.element_type("a"))
    if wgmma is None or wgmma_refusal(gemm, wgmma, threads, seen) is not None:
        return 0
    m, n, _ = gemm.mnk
    return warpgroups_for(m, n, threads, wgmma)


def wgmma_refusal(
    gemm: GemmOp, wgmma: WarpgroupMma, threads: int, seen: frozenset[GemmOp] = frozenset()
) -> str | None:
    """Why a gemm with wgmma's input types does not run on it (None: it does).  A may
    be a register fragment (wgmma's register-A form, ``register_a_refusal``)."""
    for role, operand in (("A", gemm.a), ("B", gemm.b)):
        operand_type = operand.type
        if role == "A" and is_register_fragment(operand):
            if (reason := register_a_refusal(gemm, wgmma, seen)) is not None:
                return reason
            continue
        if not (
            isinstance(operand_type, MemRefType)
            and memory_space(operand_type) is MemorySpace.SHARED
        ):
            return f"{role} is not a shared tile (wgmma reads shared memory here)"
        if not shared_tile_candidate(operand):
            shape = operand_type.get_shape()
            return (
                f"{role}'s stored rows of {shape[-1] * ELEMENT_BYTES} bytes are no "
                "descriptor swizzle's (32, 64 or 128, or 128-byte panels a tensor-map "
                "copy lands), or its rows no multiple of 8"
            )
    m, n, k = gemm.mnk
    if k < wgmma.k:
        return f"K = {k} is less than one {wgmma.k}-wide step"
    if not n_chunks(n, wgmma, wgmma.n_step):
        return f"N = {n} is no multiple of {wgmma.n_step}"
    if threads % wgmma.warpgroup_threads:
        return f"{threads} threads are no whole warpgroups of {wgmma.warpgroup_threads}"
    if not warpgroups_for(m, n, threads, wgmma):
        return f"M = {m} is no whole {wgmma.m}-row slabs"
    return None


def is_register_fragment(buffer: SSAValue) -> bool:
    buffer_type = buffer.type
    return isinstance(buffer_type, MemRefType) and memory_space(buffer_type) in (
        MemorySpace.FRAGMENT,
        MemorySpace.LOCAL,
    )


def register_a_refusal(
    gemm: GemmOp, wgmma: WarpgroupMma, seen: frozenset[GemmOp] = frozenset()
) -> str | None:
    """Why wgmma cannot read ``gemm``'s register-fragment A from registers (None: it
    can, if the lowering finds A in the accumulator layout of C's warpgroups, the
    lowering's ``wgmma_forms.reads_a_from_registers``; else A goes through shared
    memory and the gemm on mma.sync).  The register form has no transpose, and every
    K must be in whole k16 steps: no scalar tail reads A from another thread."""
    if gemm.transpose_a is not None:
        return "A is a register fragment stored K x M (wgmma reads registers as M x K)"
    m, _, k = gemm.mnk
    if k % wgmma.k:
        return f"A is a register fragment and K = {k} is no whole {wgmma.k}-wide steps"
    if not any(
        source.mnk[0] == m and kernel_warpgroups(source, seen | {gemm})
        for source in _accumulators_combined_with(gemm.a)
        if source not in seen
    ):
        return (
            "A is a register fragment combined with no wgmma accumulator of its rows "
            "(whose register layout wgmma's A takes, as P = cast(S) in attention)"
        )
    return None


def _accumulators_combined_with(fragment: SSAValue) -> list[GemmOp]:
    """The gemms accumulating into a fragment of ``fragment``'s shape that tile ops
    combine with it, transitively (``P = cast(exp(S - m))``): the lowering gives
    ``fragment`` their layout (``fragment_layouts``)."""
    shape = _tile_shape(fragment)
    group, frontier = {fragment}, [fragment]
    while frontier:
        for use in frontier.pop().uses:
            op = use.operation
            if not isinstance(op, TileOp) or op.ELEMENT_MAPPING is ElementMapping.WARP_TILED:
                continue
            for _, other, _ in op.tile_regions():
                if other not in group and is_register_fragment(other) and _tile_shape(other) == shape:
                    group.add(other)
                    frontier.append(other)
    return [
        use.operation
        for buffer in group
        for use in buffer.uses
        if isinstance(use.operation, GemmOp) and use.operation.c == buffer
    ]


def _tile_shape(buffer: SSAValue) -> tuple[int, ...]:
    buffer_type = buffer.type
    assert isinstance(buffer_type, MemRefType)
    return tuple(buffer_type.get_shape()[-2:])


def _kernel_of(gemm: GemmOp) -> tuple[CudaTarget, int] | None:
    """The CUDA target and the threads of the kernel around ``gemm``."""
    function: Operation | None = gemm
    while function is not None and function.name != "func.func":
        function = function.parent_op()
    if function is None:
        return None
    if wgmma_turned_off(function):
        return None
    try:
        target = target_of(function)
        _, threads = kernel_launch_shape(function)
    except (UnknownTarget, ValueError):
        return None
    return (target, threads) if isinstance(target, CudaTarget) else None


def wgmma_turned_off(kernel: Operation) -> bool:
    """Does the kernel say ``tile.warpgroup_mma = false`` (``tilepipe compile
    --no-wgmma``): its gemms stay on mma.sync?"""
    attr = kernel.attributes.get(WARPGROUP_MMA_ATTR)
    return isinstance(attr, IntegerAttr) and attr.value.data == 0


def kernel_warpgroups(gemm: GemmOp, seen: frozenset[GemmOp] = frozenset()) -> int:
    """``accumulator_warpgroups`` for the kernel around ``gemm`` (0 where its target
    has no wgmma or the kernel turned it off)."""
    kernel = _kernel_of(gemm)
    return 0 if kernel is None else accumulator_warpgroups(gemm, *kernel, seen)


def reads_through_async_proxy(gemm: GemmOp) -> bool:
    """Does ``gemm`` run on wgmma, reading its shared operands (B, and A unless
    wgmma reads it from registers) through the async proxy?"""
    return kernel_warpgroups(gemm) > 0


def wgmma_refused(gemm: GemmOp) -> str | None:
    """On a target with wgmma, why a gemm of its input types does not run on it; None
    when it does, or when the target or the types have no wgmma at all."""
    kernel = _kernel_of(gemm)
    if kernel is None:
        return None
    target, threads = kernel
    wgmma = wgmma_inputs(target, gemm.element_type("a"))
    return None if wgmma is None else wgmma_refusal(gemm, wgmma, threads)
