"""Tensor maps encoded by a host launcher (``lower-to-nvvm{host-launch=true}``).

A kernel with tensor-map copies (sm_90a) takes each map as a ``__grid_constant__``
parameter: the 128 bytes of a ``CUtensorMap`` the host encodes for the launch, from
the array the launch passes (its address, sizes and strides are the launch's).  Its
host launcher does what CUDA host code does before such a launch, for each map of
the kernel's record (``tilepipe.tensor_maps``):

1. it takes the array's address, sizes and strides from its memref
   (``memref.extract_strided_metadata``, ``extract_aligned_pointer_as_index``);
2. it calls ``mgpuTensorMapEncodeTiled`` of MLIR's CUDA runtime wrappers
   (``CudaRuntimeWrappers.cpp``, CUDA 12 and later: ``cuTensorMapEncodeTiled`` into
   a host ``CUtensorMap``) with the sizes innermost first, the outer dimensions'
   byte strides, the record's box and swizzle, zero fill out of bounds
   (``TENSOR_MAP_ENCODING``, the values ``tilepipe/drivers/cuda_driver.py`` uses
   too), into a 64-byte aligned stack slot;
3. it passes the slot's address to ``gpu.launch_func``, whose operand types must be
   the ``gpu.func``'s (``!llvm.ptr``) while the kernel is one.

``gpu.launch_func`` passes each operand by the address of a copy of its value, and a
``__grid_constant__`` map must be its 128 bytes: so once the kernel is an
``llvm.func`` the hand-off's :func:`pass_maps_by_value` (run with
``mark_tensor_map_parameters``, right after ``convert-gpu-to-nvvm``) loads each map
operand as an ``!llvm.array<16 x i64>``, and ``gpu-to-llvm`` copies those bytes into
the launch's argument buffer -- what ``cuLaunchKernel`` reads for a by-value
parameter.  No device memory is allocated for a map (upstream's
``nvgpu.tma.create.descriptor`` allocates some on every call and never frees it).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.tensor_maps import (
    TENSOR_MAP_ENCODING,
    TENSOR_MAPS_ATTR,
    MalformedTensorMaps,
    TensorMapParameter,
    tensor_map_parameters,
)

ENCODE_FUNCTION = "mgpuTensorMapEncodeTiled"
MAP_WORDS = TENSOR_MAP_ENCODING.map_bytes // 8
POINTER = llvm.LLVMPointerType()
# mgpuTensorMapEncodeTiled(map, data type, rank, address, sizes, byte strides, box,
# element strides, interleave, swizzle, L2 promotion, out-of-bounds fill); the
# CUtensorMap* enums and cuuint32_t are 32-bit.
ENCODE_INPUTS = [POINTER, i32, i32, POINTER, POINTER, POINTER, POINTER, POINTER, i32, i32, i32, i32]


def map_value_type() -> llvm.LLVMArrayType:
    """A map's bytes as a value (what the launch copies for the kernel)."""
    return llvm.LLVMArrayType(IntAttr(MAP_WORDS), i64)


def encode_tensor_maps(kernel: Operation, arrays: Sequence[SSAValue]) -> list[SSAValue]:
    """Encode each map of ``kernel``'s record at the current insertion point, from
    the launcher's arguments ``arrays`` (the kernel's own inputs); the maps' stack
    slots, in the kernel's map-input order."""
    try:
        records = tensor_map_parameters(kernel.attributes.get(TENSOR_MAPS_ATTR))
    except MalformedTensorMaps as error:
        raise op_error(kernel, str(error)) from None
    constants = _Constants()
    return [_encode(kernel, record, arrays[record.argument], constants) for record in records]


class _Constants(dict):
    """The launcher's constants, each made once."""

    def __call__(self, value: int, value_type: Attribute) -> SSAValue:
        key = (value, value_type)
        if key not in self:
            self[key] = arith.ConstantOp(IntegerAttr(value, value_type)).result
        return self[key]


def _encode(
    kernel: Operation, record: TensorMapParameter, array: SSAValue, constant: _Constants
) -> SSAValue:
    array_type = array.type
    assert isinstance(array_type, MemRefType)
    element = str(array_type.element_type)
    data_type = TENSOR_MAP_ENCODING.data_types.get(element)
    swizzle = TENSOR_MAP_ENCODING.swizzles.get(record.swizzle)
    if data_type is None or swizzle is None:
        raise op_error(
            kernel, f"no tensor map encodes {element} elements with a {record.swizzle}-byte swizzle"
        )
    element_bytes = array_type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    rank = array_type.get_num_dims()
    metadata = memref.ExtractStridedMetaDataOp(array)
    aligned = memref.ExtractAlignedPointerAsIndexOp.get(array).aligned_pointer
    one = constant(1, i64)
    offset_bytes = arith.MuliOp(metadata.offset, constant(element_bytes, IndexType())).result
    address = arith.AddiOp(aligned, offset_bytes).result
    pointer = llvm.IntToPtrOp(arith.IndexCastOp(address, i64).result).results[0]
    sizes = [arith.IndexCastOp(size, i64).result for size in reversed(metadata.sizes)]
    strides = [
        arith.IndexCastOp(arith.MuliOp(stride, constant(element_bytes, IndexType())).result, i64).result
        for stride in reversed(metadata.strides[:-1])
    ]
    box = [constant(extent, i32) for extent in reversed(record.box)]
    slot = llvm.AllocaOp(one, map_value_type(), alignment=TENSOR_MAP_ENCODING.map_alignment).res
    func.CallOp(
        ENCODE_FUNCTION,
        [
            slot,
            constant(data_type, i32),
            constant(rank, i32),
            pointer,
            _on_stack(sizes, i64, one),
            _on_stack(strides, i64, one),
            _on_stack(box, i32, one),
            _on_stack([constant(1, i32)] * rank, i32, one),
            constant(TENSOR_MAP_ENCODING.interleave, i32),
            constant(swizzle, i32),
            constant(TENSOR_MAP_ENCODING.l2_promotion, i32),
            constant(TENSOR_MAP_ENCODING.oob_fill, i32),
        ],
        [],
    )
    return slot


def _on_stack(values: list[SSAValue], element: Attribute, one: SSAValue) -> SSAValue:
    """A stack array holding ``values`` (at least one element: a rank-1 map has no
    outer strides, and the driver reads none)."""
    array_type = llvm.LLVMArrayType(IntAttr(max(len(values), 1)), element)
    slot = llvm.AllocaOp(one, array_type, alignment=8).res
    aggregate = llvm.UndefOp(array_type).res
    for position, value in enumerate(values):
        aggregate = llvm.InsertValueOp(
            DenseArrayBase.from_list(i64, [position]), aggregate, value
        ).res
    llvm.StoreOp(aggregate, slot)
    return slot


def declare_encoder(module: ModuleOp) -> None:
    """Declare ``mgpuTensorMapEncodeTiled`` in the host module, once."""
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == ENCODE_FUNCTION:
            return
    declaration = func.FuncOp.external(ENCODE_FUNCTION, ENCODE_INPUTS, [])
    first = module.body.block.first_op
    if first is None:
        module.body.block.add_op(declaration)
    else:  # the gpu.module stays last (lower-to-nvvm finds it there)
        module.body.block.insert_op_before(declaration, first)


def pass_maps_by_value(upstream_module, map_counts: dict[str, int], ir) -> int:
    """In upstream's module (Python bindings), load each tensor-map operand of every
    ``gpu.launch_func`` of a kernel named in ``map_counts`` (``module::kernel`` ->
    its map inputs, the last ones) as the map's bytes; returns the operands loaded."""
    value_type = ir.Type.parse(f"!llvm.array<{MAP_WORDS} x i64>")
    launches = []

    def collect(op):
        if op.name == "gpu.launch_func":
            launches.append(op)
        return ir.WalkResult.ADVANCE

    upstream_module.operation.walk(collect)
    loaded = 0
    for launch in launches:
        maps = map_counts.get("::".join(ir.SymbolRefAttr(launch.attributes["kernel"]).value), 0)
        operands = launch.operands
        for index in range(len(operands) - maps, len(operands)):
            if operands[index].type == value_type:  # loaded already
                continue
            with ir.InsertionPoint(launch), launch.location:
                load = ir.Operation.create(
                    "llvm.load", results=[value_type], operands=[operands[index]]
                )
            operands[index] = load.result
            loaded += 1
    return loaded
