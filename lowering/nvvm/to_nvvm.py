"""``lower-to-nvvm``: tile-level (or scheduled-level) kernels -> upstream gpu/nvgpu/nvvm.

The pass works in these steps:

1. ``lower_kernels`` (kernel.py) moves each kernel into a ``gpu.func`` of one
   ``gpu.module``, places the shared buffers in one shared memory buffer, turns
   register fragments into per-thread storage and ``pipeline.for`` into ``scf.for``;
2. the sync ops are lowered (``sync.py``) -- first, so that async-copy tokens have
   no users left;
3. the tile ops are lowered to per-thread code (``copy.py``, ``gemm.py``,
   ``elementwise.py``);
4. the version slots of multi-buffered loops (``(k + c) rem n``) become rotating
   loop-carried counters (``slots.py``), and loops with constant bounds count in
   32 bits (``induction.py``);
5. the index arithmetic no access ended up using (a fill of a register fragment
   needs no coordinates) is removed, so that neither the verifier, the printer nor
   upstream's parser pays for it.

The result contains only ops of upstream MLIR 22.1.8 dialects (``gpu``, ``nvgpu``,
``nvvm``, ``memref``, ``vector``, ``scf``, ``arith``, ``math``, ``llvm``); its generic
form is what ``lowering/nvvm/upstream.py`` hands to upstream MLIR for PTX.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)

from tilepipe.dialects.pipeline_sync import PIPELINE_SYNC_OPS
from tilepipe.dialects.kernel_attrs import is_kernel
from tilepipe.dialects.tile import TileOp
from tilepipe.core.diagnostics import OpDiagnosticError, op_error

from tilepipe.lowering.nvvm.atomic import LowerAtomicAdd
from tilepipe.lowering.nvvm.access import fragment_storage
from tilepipe.lowering.nvvm.copy import LowerAsyncCopy, LowerBulkCopy, LowerCopy
from tilepipe.lowering.nvvm.elementwise import LowerBroadcast, LowerElementwise, LowerReduce
from tilepipe.lowering.nvvm.fragment_slots import erase_slotted, stage_dynamic_slots
from tilepipe.lowering.nvvm.gemm import LowerGemm
from tilepipe.lowering.nvvm.induction import NarrowInductionVariable
from tilepipe.lowering.nvvm.warp_roles import consumer_barriers
from tilepipe.lowering.nvvm.wgmma_in_flight import carry_in_flight_accumulators
from tilepipe.lowering.nvvm.kernel import KernelContext, lower_kernels
from tilepipe.lowering.nvvm.relayout import stage_relayouts
from tilepipe.lowering.nvvm.slots import RotateSlotCounters
from tilepipe.lowering.nvvm.sync import (
    LowerBarrier,
    LowerCommitGroup,
    LowerFenceProxyAsync,
    LowerMBarrierUpdate,
    LowerMBarrierWait,
    LowerWaitGroup,
)
from tilepipe.lowering.nvvm.upstream_dialects import op_upstream_lacks


def sync_patterns(context: KernelContext) -> list[RewritePattern]:
    return [
        LowerBarrier(context),
        LowerCommitGroup(),
        LowerFenceProxyAsync(),
        LowerWaitGroup(),
        LowerMBarrierUpdate(context),
        LowerMBarrierWait(context),
    ]


def tile_patterns(context: KernelContext) -> list[RewritePattern]:
    return [
        LowerCopy(context),
        LowerAtomicAdd(context),
        LowerAsyncCopy(context),
        LowerBulkCopy(context),
        LowerGemm(context),
        LowerElementwise(context),
        LowerReduce(context),
        LowerBroadcast(context),
    ]


def _walk(op: Operation, patterns: list[RewritePattern]) -> None:
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns), apply_recursively=False
    ).rewrite_region(op.regions[0])


def _fragment_of(op: TileOp, role: str, context: KernelContext):
    """The registers and layout of fragment operand ``role`` of ``op``."""
    (buffer, offsets), = [(b, o) for r, b, o in op.tile_regions() if r == role]
    storage, offsets, layout = fragment_storage(op, role, buffer, offsets, context)
    assert layout is not None
    return storage, offsets, layout


def _reject_leftovers(op: Operation) -> None:
    for inner in op.walk():
        if isinstance(inner, TileOp) or type(inner) in PIPELINE_SYNC_OPS:
            raise op_error(inner, "lower-to-nvvm has no lowering for this op")


def _reject_calls_of_kernels(module: ModuleOp) -> None:
    """Without host launchers the kernels leave the host module: host code that
    refers to one (a ``func.call``) would be left dangling, an invalid module."""
    kernels = {op.sym_name.data for op in module.ops if is_kernel(op)}
    for op in module.ops:
        if is_kernel(op):
            continue
        for inner in op.walk():
            for value in (*inner.attributes.values(), *inner.properties.values()):
                if isinstance(value, SymbolRefAttr) and value.root_reference.data in kernels:
                    raise op_error(
                        inner,
                        f"refers to kernel @{value.root_reference.data}, which lower-to-nvvm "
                        "moves into a gpu.module; use lower-to-nvvm{host-launch=true} "
                        "(tilepipe compile --host-launch) to leave a host launcher of that name",
                    )


@dataclass(frozen=True)
class LowerToNVVM(ModulePass):
    """Lower tile kernels to gpu.func kernels in upstream gpu/nvgpu/nvvm dialects."""

    name = "lower-to-nvvm"

    swizzle_shared: bool = True
    """XOR-swizzle the shared tiles tensor cores read, so that ``ldmatrix`` is free of
    bank conflicts (``swizzle.py``); ``false`` keeps them row-major."""

    host_launch: bool = False
    """Replace each kernel by a host function of the same name that
    ``gpu.launch_func``-s it with its grid, block and dynamic shared memory
    (``launch.py``); without it the kernels just leave the host module."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # What this pass does not lower goes to upstream MLIR as it is.
        if (diagnostic := op_upstream_lacks(op)) is not None:
            raise OpDiagnosticError(diagnostic)
        if not self.host_launch:
            _reject_calls_of_kernels(op)
        contexts = lower_kernels(op, self.swizzle_shared, self.host_launch)
        gpu_module = op.body.block.last_op
        assert gpu_module is not None
        for kernel, context in zip(gpu_module.regions[0].block.ops, contexts):
            _walk(kernel, sync_patterns(context))
            stage_dynamic_slots(kernel.regions[0], context.slotted, context.staged)
            stage_relayouts(
                context.relayouts, context.shared_base, context.ids,
                lambda op, role: _fragment_of(op, role, context), context.relaid,
            )
            _walk(kernel, tile_patterns(context))
            carry_in_flight_accumulators(kernel)
            consumer_barriers(kernel)
            # Every access width is chosen: the tile.* argument facts are done with.
            kernel.properties.pop("arg_attrs", None)
            _reject_leftovers(kernel)
            erase_slotted(context.slotted)
            _walk(kernel, [RotateSlotCounters()])
            _walk(kernel, [NarrowInductionVariable()])
        region_dce(gpu_module.regions[0])
