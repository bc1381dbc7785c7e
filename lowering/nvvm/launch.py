"""Host-side launchers for the kernels ``lower-to-nvvm`` moved into the ``gpu.module``.

With ``lower-to-nvvm{host-launch=true}`` each kernel ``func.func @k`` is replaced, where
it stood, by a host ``func.func @k`` with the kernel's (lowered) signature whose body is
one ``gpu.launch_func @tilepipe_kernels::@k`` with the kernel's grid (computed from
the arguments as the kernel's ``tile.grid_dims`` computes it), block and dynamic
shared memory.  Host code that called ``@k`` keeps calling it, and upstream's host
passes (``gpu-to-llvm`` and the usual ``convert-*-to-llvm``) take it from there: the
launch shape stays a property of the compiled kernel, not something every caller must
repeat (and get wrong: a kernel over 48 KiB of shared memory fails to launch without
its dynamic size).  A kernel with tensor maps gets them encoded by its launcher, from
the arrays it is given, for every launch (``host_tensor_maps.py``).
"""

from __future__ import annotations

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, StringAttr, SymbolRefAttr, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tilepipe.dialects.gpu_upstream import KernelFuncOp, LaunchFuncOp
from tilepipe.dialects.tensor_maps import TENSOR_MAPS_ATTR
from tilepipe.dialects.tile_launch import grid_dims_op
from tilepipe.lowering.nvvm.host_tensor_maps import encode_tensor_maps


class GridProgram:
    """How a kernel whose ``tile.grid_dims`` computes its grid from its arguments
    computes it: a copy of that computation (the ops the extents depend on, in the
    kernel's entry block) over stand-ins for the arguments, taken before the kernel
    is lowered, for its launcher to run over its own arguments."""

    def __init__(self, kernel: func.FuncOp):
        self.block = Block(arg_types=kernel.function_type.inputs.data)
        self.extents: list[SSAValue] = []
        dims = grid_dims_op(kernel)
        if dims is None:
            return
        entry = kernel.body.block
        needed: set[Operation] = set()
        pending = list(dims.extents)
        # The verifier holds the extents to arithmetic and memref.dim on the
        # arguments in the entry block (tile_launch.GRID_EXPRESSION_OPS).
        while pending:
            owner = pending.pop().owner
            if isinstance(owner, Operation) and owner not in needed:
                needed.add(owner)
                pending.extend(owner.operands)
        mapping: dict[SSAValue, SSAValue] = dict(zip(entry.args, self.block.args))
        for op in entry.ops:  # in program order
            if op in needed:
                self.block.add_op(op.clone(value_mapper=mapping))
        self.extents = [mapping.get(e, e) for e in dims.extents]

    def emit(self, arguments: list[SSAValue]) -> list[SSAValue]:
        """The grid's extents, computed at the insertion point from ``arguments``."""
        mapping = dict(zip(self.block.args, arguments))
        for op in self.block.ops:
            op.clone(value_mapper=mapping)  # inserted by the launcher's ImplicitBuilder
        return [mapping.get(e, e) for e in self.extents]


def host_launcher(
    kernel: KernelFuncOp,
    module_name: str,
    dynamic_shared_bytes: int,
    grid_program: GridProgram | None = None,
) -> func.FuncOp:
    """A host function that launches ``kernel`` (a ``gpu.func`` of the ``gpu.module``
    named ``module_name``) with its known grid and block sizes, or the grid that
    ``grid_program`` computes from the launch's arguments."""
    name = kernel.attributes["sym_name"]
    assert isinstance(name, StringAttr)
    # The kernel's own inputs; its tensor maps (the inputs after them) the launcher
    # encodes from those (host_tensor_maps.py).
    inputs = list(kernel.function_type.inputs.data)
    maps = len(kernel.attributes[TENSOR_MAPS_ATTR]) if TENSOR_MAPS_ATTR in kernel.attributes else 0
    inputs = inputs[: len(inputs) - maps]
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

        if grid_program is not None and grid_program.extents:
            extents = grid_program.emit(list(body.args))
            grid_ops = [*extents, *[index(1)] * (3 - len(extents))]
        else:
            grid_ops = [index(v) for v in grid]
        block_ops = [index(v) for v in block]
        dynamic = (
            arith.ConstantOp.from_int_and_width(dynamic_shared_bytes, i32)
            if dynamic_shared_bytes
            else None
        )
        tensor_maps = encode_tensor_maps(kernel, body.args) if maps else []
        LaunchFuncOp(
            SymbolRefAttr(module_name, [name.data]),
            grid_ops,
            block_ops,
            kernelOperands=[*body.args, *tensor_maps],
            dynamicSharedMemorySize=dynamic,
        )
        func.ReturnOp()
    for op in body.ops:
        op.location = kernel.location
    return launcher


def _sizes(sizes) -> list[int]:
    values = [int(v) for v in sizes.get_values()] if sizes is not None else []
    return values + [1] * (3 - len(values))
