"""The kernel skeleton of ``lower-to-nvvm``: func.func -> gpu.module / gpu.func.

What moves where:

* the kernel becomes ``gpu.func @name(...) kernel`` in ``gpu.module @tilepipe_kernels``
  (the enclosing module gets ``gpu.container_module``), with ``known_block_size`` /
  ``known_grid_size`` from ``tile.threads`` / ``tile.grid``;
* shared buffers (``memref.alloc`` in ``"shared"``) become ``memref.view``s of one
  shared memory buffer at 16-byte aligned offsets, in program order.  When the arena
  pass ran there is one i8 arena and its views are kept as they are.  Up to 48 KiB the
  buffer is a static workgroup attribution (``ptxas -v`` reports it as smem); beyond
  that -- CUDA's static shared memory limit -- it is the dynamic shared memory
  (``gpu.dynamic_shared_memory``) and the kernel records the bytes to launch with in
  ``tilepipe.dynamic_shared_memory``.  The scratch of the register-fragment
  reductions that go through shared memory (``reduce_scratch.py``) is one more
  shared buffer, after the others;
* register fragments become per-thread ``memref.alloca``s holding the elements the
  thread owns under the fragment's layout (``layout.py``, chosen by
  ``fragment_layouts.py``): a gemm accumulator's mma or warpgroup (wgmma) layout,
  propagated to the fragments combined with it elementwise; a kernel whose
  fragments cannot fit in the target's registers per thread gets a warning
  (``registers.py``);
* the shared tiles tensor cores read get an XOR swizzle of their 16-byte units
  (``swizzle.py``), which every access of theirs applies;
* ``tile.block_id`` -> ``gpu.block_id``, ``pipeline.for`` -> ``scf.for``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriteWalker,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.dialects.gpu_upstream import (
    DynamicSharedMemoryOp,
    KernelFuncOp,
    KernelModuleOp,
    KernelReturnOp,
)
from tilepipe.dialects.kernel_attrs import (
    KernelAttributeError,
    is_kernel,
    kernel_launch_shape,
    verify_memory_spaces,
)
from tilepipe.dialects.memory_space import MemorySpace
from tilepipe.dialects.pipeline import ForOp as PipelineForOp
from tilepipe.dialects.pipeline_sync import BulkCopyOp
from tilepipe.dialects.pipeline_ws import WarpSpecializeOp
from tilepipe.dialects.tensor_maps import SHARED_ALIGNMENT_ATTR, TENSOR_MAPS_ATTR
from tilepipe.dialects.tile import BlockIdOp, GemmOp, GridDimsOp, ReduceOp
from tilepipe.dialects.tile_launch import grid_dims_op
from tilepipe.core.diagnostics import op_error
from tilepipe.core.targets import CudaTarget, target_of

from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.fragment_slots import SlottedFragment, slot_count, slot_rank
from tilepipe.lowering.nvvm.layout import (
    MMA_K,
    WARP_SIZE,
    FragmentLayout,
    MmaAccumulatorLayout,
    ThreadIds,
    tensor_core_shape,
)
from tilepipe.lowering.nvvm.reduce_scratch import (
    add_scratch,
    read_barriers,
    scratch_bytes,
    scratch_reductions,
)
from tilepipe.lowering.nvvm.registers import check_register_budget
from tilepipe.lowering.nvvm.staging_tiles import add_staging_buffers
from tilepipe.lowering.nvvm.relayout import Relayout, plan_relayouts
from tilepipe.lowering.nvvm.swizzle import SharedSwizzle, swizzled_buffers
from tilepipe.lowering.nvvm.tensor_maps import TensorCopy, add_tensor_maps
from tilepipe.lowering.nvvm.warp_roles import (
    MAXNREG_ATTR,
    entry_registers,
    producer_threads,
    split_roles,
)
from tilepipe.lowering.nvvm.fragment_layouts import fragment_layouts, is_alloc_in

SHARED_ADDRESS_SPACE = IntegerAttr(3, i64)
STATIC_SHARED_LIMIT = 48 * 1024  # CUDA: static __shared__ bytes per kernel, all archs
SHARED_ALIGNMENT = 16
GPU_MODULE_NAME = "tilepipe_kernels"
DYNAMIC_SHARED_ATTR = "tilepipe.dynamic_shared_memory"
SWIZZLE_ATTR = "tilepipe.swizzle"  # on the memref.view of a swizzled shared tile


@dataclass
class KernelContext:
    """What the tile-op lowerings need to know about the kernel being lowered."""

    name: str
    target: CudaTarget
    ids: ThreadIds
    fragments: dict[SSAValue, FragmentLayout] = field(default_factory=dict)
    shared_bytes: int = 0
    dynamic_shared: bool = False
    shared_arena: SSAValue | None = None  # the static workgroup buffer, if any
    swizzles: dict[SSAValue, SharedSwizzle] = field(default_factory=dict)
    # The shared tile (byte offset, type) each register fragment operand of a gemm is
    # staged in (``staging``).
    gemm_staging: dict[GemmOp, dict[str, tuple[int, MemRefType]]] = field(default_factory=dict)
    # Where the scratch of the fragment reductions staged through shared memory
    # lies (``reduce_scratch``); those reductions, each with whether a barrier
    # must follow its reads.
    scratch_offset: int | None = None
    scratch_reductions: dict[ReduceOp, bool] = field(default_factory=dict)
    # Each tensor-map copy's map input and swizzle (``tensor_maps``).
    tensor_copies: dict[BulkCopyOp, TensorCopy] = field(default_factory=dict)

    def shared_memory(self) -> SSAValue:
        """The kernel's shared memory (i8), emitted where it is used: an op that does
        not use it, as the views of an unused buffer, would not survive the rewrite
        walkers' dead-code elimination (upstream CSE merges the dynamic copies)."""
        if self.shared_arena is not None:
            return self.shared_arena
        assert self.dynamic_shared
        return _dynamic_shared_memory()

    def shared_view(self, offset: int, view_type: MemRefType) -> SSAValue:
        """A view of the kernel's shared memory at ``offset``, emitted here."""
        return memref.ViewOp(self.shared_memory(), emit.const(offset), [], view_type).results[0]
    slotted: dict[SSAValue, SlottedFragment] = field(default_factory=dict)
    """The tile-level fragments with slot dimensions (``fragment_slots.py``), until
    their tile ops are lowered: one alloca per slot, each in ``fragments``."""
    staged: dict[tuple[Operation, str], SSAValue] = field(default_factory=dict)
    """The staging fragment of each (tile op, role) that picks a slot at run time."""
    relayouts: list[Relayout] = field(default_factory=list)
    """Fragment operands of another layout than their op's (``relayout.py``)."""
    relaid: dict[tuple[Operation, str], SSAValue] = field(default_factory=dict)
    """The shared scratch tile each of them is read from, once staged."""
    shared_base: SSAValue | None = None
    shared_base_alignment: int = SHARED_ALIGNMENT
    """What the kernel's shared memory is aligned to (``wgmma.py`` asks)."""

    @property
    def threads(self) -> int:
        return self.ids.threads

    @property
    def warps(self) -> int:
        return self.threads // WARP_SIZE

    def layout_of(self, buffer: SSAValue) -> FragmentLayout | None:
        """The layout of register fragment ``buffer`` (of each slot, if it has any)."""
        slotted = self.slotted.get(buffer)
        return slotted.layout if slotted is not None else self.fragments.get(buffer)

    def on_tensor_cores(self, gemm: GemmOp) -> bool:
        """Does ``gemm`` run on tensor cores: its accumulator has the mma layout, the
        target an mma for its inputs, and K a whole 16-wide step at least?  (Its
        operands' alignment is the lowering's last word: ``gemm.py``.)"""
        return (
            isinstance(self.layout_of(gemm.c), MmaAccumulatorLayout)
            and tensor_core_shape(self.target, gemm.element_type("a")) is not None
            and gemm.mnk[2] >= MMA_K
        )


def _convert_global_type(memref_type: Attribute) -> Attribute:
    if isinstance(memref_type, MemRefType) and isinstance(
        memref_type.memory_space, StringAttr
    ):
        return MemRefType(
            memref_type.element_type,
            memref_type.get_shape(),
            memref_type.layout,
            NoneAttr(),
        )
    return memref_type


def shared_type(memref_type: MemRefType) -> MemRefType:
    return MemRefType(
        memref_type.element_type,
        memref_type.get_shape(),
        memref_type.layout,
        SHARED_ADDRESS_SPACE,
    )


class ConvertMemorySpaces(TypeConversionPattern):
    """Tile-level memory spaces as the GPU's address spaces ("shared" -> 3, "global"
    -> none), on every value of the kernel: not only the buffers the lowering rewrites
    but whatever derives from them (``memref.cast``, ``subview``, ``reinterpret_cast``,
    ``view`` results, block arguments), so that no value keeps a type upstream MLIR
    cannot relate to its (converted) source."""

    recursive = True

    @attr_type_rewrite_pattern
    def convert_type(self, typ: MemRefType) -> MemRefType | None:
        space = typ.memory_space
        if not isinstance(space, StringAttr):
            return None
        if space.data == MemorySpace.SHARED.value:
            converted: Attribute = SHARED_ADDRESS_SPACE
        elif space.data == MemorySpace.GLOBAL.value:
            converted = NoneAttr()
        else:  # fragments and locals become registers buffer by buffer
            return None
        return MemRefType(typ.element_type, typ.get_shape(), typ.layout, converted)


def _align(offset: int, alignment: int) -> int:
    return -(-offset // alignment) * alignment


def _alignment(alloc: memref.AllocOp) -> int:
    """16 bytes, or what the alloc asks for: its ``alignment`` (the arena's), or the
    ``arena.*`` requests of a buffer no arena pass placed (a tensor copy's box)."""
    from tilepipe.passes.memory.liveness import buffer_alignment

    return buffer_alignment(alloc, SHARED_ALIGNMENT)


def shared_offsets(kernel: func.FuncOp) -> tuple[dict[memref.AllocOp, int], int, int]:
    """Offsets of the shared buffers, back to back in program order, the total bytes
    and the alignment the shared memory buffer needs."""
    offsets: dict[memref.AllocOp, int] = {}
    total = 0
    base_alignment = SHARED_ALIGNMENT
    for op in kernel.walk():
        if not is_alloc_in(op, (MemorySpace.SHARED,)):
            continue
        buffer_type = op.memref.type
        assert isinstance(buffer_type, MemRefType)
        if DYNAMIC_INDEX in buffer_type.get_shape():
            raise op_error(op, "shared buffers need a static shape")
        alignment = _alignment(op)
        base_alignment = max(base_alignment, alignment)
        total = _align(total, alignment)
        offsets[op] = total
        total += buffer_type.element_count() * max(1, buffer_type.element_type.bitwidth // 8)
    return offsets, total, base_alignment


def build_kernel(
    kernel: func.FuncOp, gpu_module_body: Block, swizzle: bool = True
) -> KernelContext:
    """Move ``kernel`` into a ``gpu.func`` at the end of ``gpu_module_body``."""
    target = target_of(kernel)
    if not isinstance(target, CudaTarget):
        raise op_error(kernel, f"lower-to-nvvm needs a CUDA target, got '{target.name}'")
    try:  # a kernel without tile.target is for the default target: check it here
        verify_memory_spaces(kernel, target)
    except KernelAttributeError as err:
        raise op_error(err.op, str(err)) from None
    grid, threads = kernel_launch_shape(kernel)
    layouts = fragment_layouts(kernel, threads, target)
    staging = add_staging_buffers(kernel, layouts)
    check_register_budget(kernel, layouts, target)
    reductions = scratch_reductions(kernel, layouts)
    scratch = add_scratch(kernel, reductions)
    offsets, shared_bytes, base_alignment = shared_offsets(kernel)
    relayouts, shared_bytes = plan_relayouts(kernel, layouts, shared_bytes, threads)
    if shared_bytes > target.shared_memory_bytes:
        if scratch is not None and shared_bytes - offsets[scratch] <= target.shared_memory_bytes:
            scratch_size = scratch.memref.type.get_shape()[0]
            raise op_error(
                max(reductions, key=scratch_bytes),  # the one the scratch is sized for
                f"needs {shared_bytes} bytes of shared memory with the {scratch_size}-byte "
                f"shared-memory scratch of this register-fragment reduction, "
                f"{target.name} has {target.shared_memory_bytes} per block",
            )
        raise op_error(
            kernel,
            f"needs {shared_bytes} bytes of shared memory, {target.name} has "
            f"{target.shared_memory_bytes} per block",
        )
    dynamic = shared_bytes > STATIC_SHARED_LIMIT
    workgroup = (
        [(MemRefType(i8, [shared_bytes], memory_space=SHARED_ADDRESS_SPACE), base_alignment)]
        if shared_bytes and not dynamic
        else []
    )
    inputs = [_convert_global_type(t) for t in kernel.function_type.inputs.data]
    gpu_func = KernelFuncOp(
        kernel.sym_name.data,
        inputs,
        workgroup,
        # A warp-specialized kernel's producers come after its own threads.
        (threads + producer_threads(kernel), 1, 1),
        # A grid stated by tile.grid_dims is only known at launch (evaluate_grid).
        None if grid_dims_op(kernel) is not None else tuple(grid) + (1,) * (3 - len(grid)),
    )
    gpu_func.location = kernel.location
    if kernel.arg_attrs is not None:  # the divisibility facts, until to_nvvm drops them
        gpu_func.arg_attrs = kernel.arg_attrs
    if (entry := entry_registers(kernel, threads)) is not None:
        gpu_func.attributes[MAXNREG_ATTR] = IntegerAttr(entry, i32)
    if dynamic:
        gpu_func.attributes[DYNAMIC_SHARED_ATTR] = IntegerAttr(shared_bytes, i64)
        if base_alignment > SHARED_ALIGNMENT:  # upstream.align_dynamic_shared_memory
            gpu_func.attributes[SHARED_ALIGNMENT_ATTR] = IntegerAttr(base_alignment, i64)
    gpu_module_body.add_op(gpu_func)

    entry = gpu_func.body.block
    old_entry = kernel.body.block
    for old_arg, new_arg in zip(old_entry.args, entry.args):
        old_arg.replace_all_uses_with(new_arg)
    for op in list(old_entry.ops):
        op.detach()
        entry.add_op(op)

    with ImplicitBuilder(Builder(InsertPoint.at_start(entry))):
        shared_base: SSAValue | None = None
        if workgroup:
            shared_base = entry.args[len(inputs)]
        elif dynamic:
            shared_base = _dynamic_shared_memory()
            # The kernel's shared memory as a whole: located at the kernel.
            _located(shared_base.owner, kernel)
            _located(shared_base.owner.source.owner, kernel)

    context = KernelContext(kernel.sym_name.data, target, ThreadIds(threads), {}, shared_bytes, dynamic)
    context.shared_arena = entry.args[len(inputs)] if workgroup else None
    context.relayouts, context.shared_base = relayouts, shared_base
    _rewrite_buffers(offsets, shared_base, layouts, context)
    # Views of the staging tiles are made where the gemm is lowered: one made here
    # would have no use yet, and the rewrite walkers erase unused pure ops.
    context.gemm_staging = {
        gemm: {role: (offsets[a], shared_type(a.memref.type)) for role, a in allocs.items()}
        for gemm, allocs in staging.items()
    }
    # The gpu.func itself already has global arguments (_convert_global_type).
    PatternRewriteWalker(ConvertMemorySpaces()).rewrite_region(gpu_func.body)
    _rewrite_structure(gpu_func, threads)
    if scratch is not None:
        context.scratch_offset = offsets[scratch]
        context.scratch_reductions = read_barriers(reductions)
    if swizzle:
        context.swizzles = swizzled_buffers(_shared_views(gpu_func), context.on_tensor_cores)
        for view, permutation in context.swizzles.items():
            assert isinstance(view.owner, Operation)
            view.owner.attributes[SWIZZLE_ATTR] = StringAttr(permutation.describe())
    context.tensor_copies = add_tensor_maps(gpu_func, context.swizzles)
    context.shared_base_alignment = base_alignment
    return context


def _dynamic_shared_memory() -> SSAValue:
    dynamic_memory = DynamicSharedMemoryOp().resultMemref
    cast = memref.MemorySpaceCastOp(
        dynamic_memory, MemRefType(i8, [DYNAMIC_INDEX], memory_space=SHARED_ADDRESS_SPACE)
    )
    return cast.dest


def _shared_views(gpu_func: KernelFuncOp) -> list[SSAValue]:
    return [
        op.results[0]
        for op in gpu_func.walk()
        if isinstance(op, memref.ViewOp)
        and op.results[0].type.memory_space == SHARED_ADDRESS_SPACE
    ]


def _rewrite_buffers(
    offsets: dict[memref.AllocOp, int],
    shared_base: SSAValue | None,
    layouts: dict[SSAValue, FragmentLayout],
    context: KernelContext,
) -> None:
    for alloc, offset in offsets.items():
        assert shared_base is not None
        with ImplicitBuilder(Builder(InsertPoint.before(alloc))):
            view = memref.ViewOp(
                shared_base, emit.const(offset), [], shared_type(alloc.memref.type)
            )
            view.location = alloc.location
        _replace_value_and_retype_views(alloc, view.results[0])
    for buffer, layout in layouts.items():
        alloc = buffer.owner
        assert isinstance(alloc, memref.AllocOp)
        storage = []
        for _ in range(slot_count(buffer)):
            alloca = memref.AllocaOp.get(
                alloc.memref.type.element_type,
                alignment=emit.BASE_ALIGNMENT,  # runs of registers are vector accesses
                shape=[layout.registers],
            )
            alloca.location = alloc.location
            Rewriter.insert_op(alloca, InsertPoint.before(alloc))
            context.fragments[alloca.memref] = layout
            storage.append(alloca.memref)
        slots = tuple(alloc.memref.type.get_shape())[: slot_rank(buffer)]
        if slots:  # the tile ops pick their slot's alloca (fragment_slots.py)
            context.slotted[buffer] = SlottedFragment(slots, layout, tuple(storage))
            continue
        alloc.memref.replace_all_uses_with(storage[0])
        Rewriter.erase_op(alloc)


def _replace_value_and_retype_views(alloc: memref.AllocOp, new_value: SSAValue) -> None:
    """Replace a shared alloc; views of it (the arena pass's) get shared types too."""
    for use in list(alloc.memref.uses):
        user = use.operation
        if isinstance(user, memref.ViewOp):
            new_view = memref.ViewOp(
                new_value,
                user.byte_shift,
                list(user.sizes),
                shared_type(user.results[0].type),
            )
            Rewriter.replace_op(user, _located(new_view, user))
    alloc.memref.replace_all_uses_with(new_value)
    Rewriter.erase_op(alloc)


def _rewrite_structure(gpu_func: KernelFuncOp, consumers: int) -> None:
    for op in list(gpu_func.walk()):
        if isinstance(op, BlockIdOp):
            dimension = gpu.DimensionAttr(gpu.DimensionEnum(op.dimension.data))
            Rewriter.replace_op(op, _located(gpu.BlockIdOp(dimension), op))
        elif isinstance(op, GridDimsOp):
            Rewriter.erase_op(op)  # the launch's business (passes/analysis/grid.py)
        elif isinstance(op, func.ReturnOp):
            Rewriter.replace_op(op, _located(KernelReturnOp(), op))
        elif isinstance(op, PipelineForOp):
            _pipeline_for_to_scf(op)
        elif isinstance(op, WarpSpecializeOp):
            split_roles(op, consumers)


def _pipeline_for_to_scf(loop: PipelineForOp) -> None:
    """A ``pipeline.for`` that reached the lowering runs its iterations in order."""
    body = loop.body.block
    terminator = body.last_op
    assert terminator is not None
    Rewriter.replace_op(terminator, scf.YieldOp())
    region = Region()
    loop.body.move_blocks(region)
    Rewriter.replace_op(
        loop, _located(scf.ForOp(loop.lb, loop.ub, loop.step, [], region), loop)
    )


def _located(new: Operation, old: Operation) -> Operation:
    new.location = old.location
    return new


def lower_kernels(
    module: ModuleOp, swizzle: bool = True, host_launch: bool = False
) -> list[KernelContext]:
    """Move every kernel of ``module`` into one ``gpu.module``; host functions
    (:func:`is_kernel`) stay where they are, untouched.  With ``host_launch`` each
    kernel leaves a host launcher of the same name in its place (``launch.py``)."""
    from tilepipe.lowering.nvvm.host_tensor_maps import declare_encoder
    from tilepipe.lowering.nvvm.launch import GridProgram, host_launcher

    kernels = [op for op in module.ops if is_kernel(op)]
    gpu_module = KernelModuleOp(StringAttr(GPU_MODULE_NAME), Region(Block()))
    if kernels:  # where upstream's kernel outlining puts it: at the (first) kernel
        _located(gpu_module, kernels[0])
    # A grid computed from the arguments, for the launchers (before the kernels move).
    grids = [GridProgram(kernel) if host_launch else None for kernel in kernels]
    contexts = [build_kernel(kernel, gpu_module.body.block, swizzle) for kernel in kernels]
    module.body.block.add_op(gpu_module)
    for kernel, gpu_func, context, grid in zip(kernels, gpu_module.body.block.ops, contexts, grids):
        if host_launch:
            assert isinstance(gpu_func, KernelFuncOp)
            dynamic = context.shared_bytes if context.dynamic_shared else 0
            launcher = host_launcher(gpu_func, GPU_MODULE_NAME, dynamic, grid)
            Rewriter.replace_op(kernel, launcher)
            if TENSOR_MAPS_ATTR in gpu_func.attributes:
                declare_encoder(module)
        else:
            Rewriter.erase_op(kernel)
    module.attributes["gpu.container_module"] = UnitAttr()
    return contexts
