"""Host-side launchers for the kernels ``lower-to-nvvm`` moved into the ``gpu.module``.

With ``lower-to-nvvm{host-launch=true}`` each kernel ``func.func @k`` is replaced, where
it stood, by a host ``func.func @k`` with the kernel's (lowered) signature whose body is
one ``gpu.launch_func @tilepipe_kernels::@k`` with the kernel's grid, block and dynamic
shared memory.  Host code that called ``@k`` keeps calling it, and upstream's host
passes (``gpu-to-llvm`` and the usual ``convert-*-to-llvm``) take it from there: the
launch shape stays a property of the compiled kernel, not something every caller must
repeat (and get wrong: a kernel over 48 KiB of shared memory fails to launch without
its dynamic size).
"""

from __future__ import annotations

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, StringAttr, SymbolRefAttr, i32
from xdsl.rewriter import InsertPoint

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.gpu_upstream import KernelFuncOp, LaunchFuncOp
from tilepipe.dialects.tensor_maps import TENSOR_MAPS_ATTR


def host_launcher(kernel: KernelFuncOp, module_name: str, dynamic_shared_bytes: int) -> func.FuncOp:
    """A host function that launches ``kernel`` (a ``gpu.func`` of the ``gpu.module``
    named ``module_name``) with its known grid and block sizes."""
    name = kernel.attributes["sym_name"]
    assert isinstance(name, StringAttr)
    if TENSOR_MAPS_ATTR in kernel.attributes:
        # gpu.launch_func passes each operand by address, a map must go by value
        # (128 bytes); the host encodes it (docs/nvvm.md, "Tensor maps").
        raise op_error(
            kernel,
            "a host launcher cannot pass tensor maps yet: launch the kernel from a host "
            "that encodes them (scripts/gpu_run.py), or compile without them "
            "(--no-tensor-maps, tensor_maps=False, tma-copy{tensor_maps=false})",
        )
    inputs = list(kernel.function_type.inputs.data)
    launcher = func.FuncOp(name.data, (inputs, []))
    launcher.location = kernel.location
    grid = _sizes(kernel.known_grid_size)
    block = _sizes(kernel.known_block_size)
    body = launcher.body.block
    for arg, kernel_arg in zip(body.args, kernel.body.block.args):
        arg.name_hint = kernel_arg.name_hint
    with ImplicitBuilder(Builder(InsertPoint.at_end(body))):
        constants: dict[int, arith.ConstantOp] = {}

        def index(value: int) -> arith.ConstantOp:
            if value not in constants:
                constants[value] = arith.ConstantOp.from_int_and_width(value, IndexType())
            return constants[value]

        grid_ops = [index(v) for v in grid]
        block_ops = [index(v) for v in block]
        dynamic = (
            arith.ConstantOp.from_int_and_width(dynamic_shared_bytes, i32)
            if dynamic_shared_bytes
            else None
        )
        LaunchFuncOp(
            SymbolRefAttr(module_name, [name.data]),
            grid_ops,
            block_ops,
            kernelOperands=list(body.args),
            dynamicSharedMemorySize=dynamic,
        )
        func.ReturnOp()
    for op in body.ops:
        op.location = kernel.location
    return launcher


def _sizes(sizes) -> list[int]:
    values = [int(v) for v in sizes.get_values()] if sizes is not None else []
    return values + [1] * (3 - len(values))
