"""The tensor maps of a kernel's tensor-map copies (sm_90a): one ``__grid_constant__``
kernel parameter per distinct (array, box, swizzle), and the kernel's record of them.

A ``CUtensorMap`` is encoded on the host, per launch, from the array's address and
sizes (``cuTensorMapEncodeTiled``) and passed by value: 128 bytes in the parameter
space, whose generic address the copy takes.  In the ``gpu.func`` each map is an
``!llvm.ptr`` input after the kernel's own, and the function carries the record
``tilepipe.tensor_maps`` (``dialects/tensor_maps.py``).  That is all a host needs
besides the arrays themselves: the element type, sizes and strides are the argument's.  Upstream's ``convert-gpu-to-nvvm``
keeps no ``llvm.byval`` on a ``gpu.func`` argument and rejects ``nvvm.grid_constant``
there, so the hand-off marks the map parameters on the ``llvm.func`` it produced
(``upstream.mark_tensor_map_parameters``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import FunctionType
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import BlockArgument, SSAValue

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.gpu_upstream import KernelFuncOp
from tilepipe.dialects.pipeline_sync import BulkCopyOp
from tilepipe.dialects.tensor_maps import (
    TENSOR_MAPS_ATTR,
    TensorMapParameter,
    tensor_maps_attribute,
)
from tilepipe.dialects.tile_base import constant_index
from tilepipe.passes.cuda.tensor_map import swizzle_alignment, tensor_box

from tilepipe.lowering.nvvm.swizzle import SharedSwizzle

@dataclass(frozen=True)
class TensorCopy:
    """How one tensor-map copy is lowered: its map input, its swizzle and the panels
    it lands as (one box of ``panel_columns`` columns each; 1: the whole tile)."""

    tensor_map: SSAValue
    swizzle: int
    panels: int = 1
    panel_columns: int = 0


def _view_offset(buffer: SSAValue) -> int | None:
    """The byte offset of a shared view in the kernel's shared memory."""
    owner = buffer.owner
    if isinstance(owner, memref.ViewOp):
        return constant_index(owner.byte_shift)
    return 0 if isinstance(buffer, BlockArgument) else None


def add_tensor_maps(
    gpu_func: KernelFuncOp, swizzles: dict[SSAValue, SharedSwizzle]
) -> dict[BulkCopyOp, TensorCopy]:
    """Give ``gpu_func`` a map input for each distinct map its tensor copies use;
    return how each copy is lowered.  ``swizzles``: the shared views the lowering
    permutes (``swizzle.py``) -- a copy into one lands in the matching hardware
    swizzle."""
    copies = [op for op in gpu_func.walk() if isinstance(op, BulkCopyOp) and op.is_tensor_copy]
    if not copies:
        return {}
    entry = gpu_func.body.block
    inputs = gpu_func.num_inputs
    parameters: dict[TensorMapParameter, SSAValue] = {}
    lowered: dict[BulkCopyOp, TensorCopy] = {}
    for op in copies:
        box = tensor_box(op)
        if isinstance(box, str):
            raise op_error(op, f"a tensor-map copy needs a box; here: {box}")
        source = op.src
        if not isinstance(source, BlockArgument) or source.index >= inputs:
            raise op_error(op, "a tensor-map copy reads a kernel argument")
        permutation = swizzles.get(op.dst)
        swizzle = box.swizzle_candidate if permutation is not None else 0
        panels = permutation.panels if permutation is not None else 1
        if panels != (box.panels if swizzle else 1):
            raise op_error(op, "the tile's panels are not the box's")  # swizzle.py: same rule
        panel_box = (*box.box[:-1], box.box[-1] // panels)
        _check_destination_alignment(op, box.bytes // panels, swizzle)
        parameter = TensorMapParameter(source.index, panel_box, swizzle)
        if parameter not in parameters:
            parameters[parameter] = entry.insert_arg(
                LLVMPointerType(), inputs + len(parameters)
            )
            parameters[parameter].name_hint = f"{source.name_hint or 'arg'}_map"
        lowered[op] = TensorCopy(parameters[parameter], swizzle, panels, panel_box[-1])
    old = gpu_func.function_type
    gpu_func.function_type = FunctionType.from_lists(
        [*old.inputs.data, *(LLVMPointerType() for _ in parameters)], old.outputs.data
    )
    gpu_func.attributes[TENSOR_MAPS_ATTR] = tensor_maps_attribute(parameters)
    return lowered


def _check_destination_alignment(op: BulkCopyOp, box_bytes: int, swizzle: int) -> None:
    """A tensor copy lands at a 128-byte aligned shared address, a swizzled one at
    its pattern's alignment (the hardware swizzles by address bits); ``tma-copy``
    asks the arena for it, a hand-written copy may not have."""
    needed = swizzle_alignment(swizzle)
    offset = _view_offset(op.dst)
    if offset is None or offset % needed or box_bytes % needed:
        where = "an unknown offset" if offset is None else f"byte offset {offset}"
        raise op_error(
            op,
            f"a tensor-map copy needs its shared tile {needed}-byte aligned; the tile "
            f"lies at {where} (ask with arena.alignment or arena.swizzle)",
        )
