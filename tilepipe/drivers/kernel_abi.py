"""The kernel ABI tilepipe's PTX is launched with (``scripts/gpu_check.py``,
``tilepipe.language`` on a GPU): upstream MLIR's, every memref
argument passed as its flattened descriptor (allocated pointer, aligned pointer, offset,
sizes, strides), every index argument as an i64, then (sm_90a) each tensor map the
kernel records in ``tilepipe.tensor_maps`` by value, 128 bytes encoded on the host for
this launch; checked against the PTX entry's ``.param`` list before anything touches
the GPU (docs/gpu_check.md)."""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import IndexType, MemRefType, NoneAttr
from xdsl.dialects.func import FuncOp

from tilepipe.semantics import KernelError, argument_names
from tilepipe.semantics.tile.grid_runner import argument_shape

from tilepipe.drivers.cuda_driver import CudaError, TensorMapValue


@dataclass(frozen=True)
class PtxParam:
    """One ``.param`` of a PTX entry: its size and whether it is declared ``.ptr``."""

    bits: int
    is_pointer: bool


_ENTRY = r"\.entry\s+{name}\s*\((?P<params>[^)]*)\)"
# ".param .u64 .ptr .align 1 name" or, by value, ".param .align 64 .b8 name[128]"
_PARAM = re.compile(
    r"\.param\s+(?:\.align\s+\d+\s+)?\.[busf](?P<bits>\d+)(?P<ptr>\s+\.ptr)?"
    r"(?:\s+\.align\s+\d+)?\s+\w+(?:\[(?P<count>\d+)\])?"
)


def ptx_parameters(ptx: str, kernel: str) -> list[PtxParam]:
    match = re.search(_ENTRY.format(name=re.escape(kernel)), ptx)
    if match is None:
        raise CudaError(f"the PTX has no entry '{kernel}'")
    return [
        PtxParam(int(m.group("bits")) * int(m.group("count") or 1), m.group("ptr") is not None)
        for m in _PARAM.finditer(match.group("params"))
    ]


def memref_descriptor(name: str, shape, pointer: int) -> list[tuple[str, ctypes._SimpleCData]]:
    """The flattened memref descriptor upstream's finalize-memref-to-llvm expects.

    ``{ptr allocated, ptr aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}``,
    one kernel parameter per field; identity layout, so offset 0 and row-major strides.
    """
    strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape))]
    fields = [(f"{name}.allocated", ctypes.c_void_p(pointer)), (f"{name}.aligned", ctypes.c_void_p(pointer))]
    fields.append((f"{name}.offset", ctypes.c_int64(0)))
    fields += [(f"{name}.sizes[{d}]", ctypes.c_int64(s)) for d, s in enumerate(shape)]
    fields += [(f"{name}.strides[{d}]", ctypes.c_int64(s)) for d, s in enumerate(strides)]
    return fields


def argument_shapes(func: FuncOp, shapes: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    """The launch shape of every memref argument: static from its type, dynamic
    dimensions from ``shapes`` (by argument name)."""
    result = {}
    for name, arg in zip(argument_names(func), func.body.block.args):
        if isinstance(arg.type, MemRefType):
            try:
                result[name] = argument_shape(func, name, arg.type, shapes.get(name), None)
            except KernelError as err:
                raise CudaError(str(err).replace("shapes / --shape", "--shape")) from None
    return result


def kernel_arguments(
    func: FuncOp, pointers: dict[str, int], shapes: dict[str, tuple[int, ...]] | None = None,
    index_args: dict[str, int] | None = None, tensor_maps=(), encode=None,
) -> list[tuple[str, ctypes._SimpleCData]]:
    """The kernel's parameter list for device buffers ``pointers`` (by argument name),
    the sizes of dynamic dimensions ``shapes`` and the values ``index_args``, then
    one parameter per tensor map (``tensor_maps``: the lowered kernel's
    ``TensorMapParameter`` list), each ``encode(pointer, shape, element type, element
    bytes, box, swizzle)`` (``CudaDriver.tensor_map``; without it, 128 zero bytes
    that only the ABI check looks at)."""
    sizes = argument_shapes(func, shapes or {})
    index_args = index_args or {}
    arguments: list[tuple[str, ctypes._SimpleCData]] = []
    for name, arg in zip(argument_names(func), func.body.block.args):
        arg_type = arg.type
        if isinstance(arg_type, IndexType):
            if name not in index_args:
                raise CudaError(f"index argument %{name} needs a value: --index-arg {name}=V")
            arguments.append((name, ctypes.c_int64(index_args[name])))
            continue
        if not isinstance(arg_type, MemRefType):
            raise CudaError(f"argument %{name} : {arg_type}: a launch passes memref and index arguments only")
        if not isinstance(arg_type.layout, NoneAttr):
            raise CudaError(f"argument %{name} : {arg_type}: needs a row-major memref")
        arguments += memref_descriptor(name, sizes[name], pointers[name])
    names = argument_names(func)
    for tensor_map in tensor_maps:
        name = names[tensor_map.argument]
        arg_type = func.body.block.args[tensor_map.argument].type
        element = arg_type.element_type
        if encode is None:
            value = TensorMapValue()
        else:
            value = encode(
                pointers[name], sizes[name], str(element), element.bitwidth // 8,
                tensor_map.box, tensor_map.swizzle,
            )
        arguments.append((f"{name}.tensor_map", value))
    return arguments


def check_abi(arguments, params: list[PtxParam], kernel: str) -> None:
    """The packed arguments must be the PTX entry's parameters, one for one."""
    if len(arguments) != len(params):
        raise CudaError(
            f"kernel {kernel}: {len(arguments)} packed arguments, the PTX declares {len(params)} parameters"
        )
    for index, ((name, value), param) in enumerate(zip(arguments, params)):
        value = value.value if isinstance(value, TensorMapValue) else value
        pointer = isinstance(value, ctypes.c_void_p)
        if ctypes.sizeof(value) * 8 != param.bits or pointer != param.is_pointer:
            raise CudaError(
                f"kernel {kernel}: parameter {index} ({name}, {ctypes.sizeof(value)} bytes"
                f"{', pointer' if pointer else ''}) does not match the PTX's .b{param.bits}"
                f"{' .ptr' if param.is_pointer else ''}"
            )


def tensor_map_parameters(module, kernel: str) -> list:
    """The tensor maps the lowered ``kernel`` of ``module`` (the nvvm level) takes,
    in parameter order (``lowering/nvvm/tensor_maps.py``)."""
    from tilepipe.dialects.tensor_maps import TENSOR_MAPS_ATTR, tensor_map_parameters as read

    for op in module.walk() if module is not None else ():
        if op.name == "gpu.func" and op.attributes["sym_name"].data == kernel:
            return read(op.attributes.get(TENSOR_MAPS_ATTR))
    return []
