"""Verification of the ``tile.*`` discardable attributes of a kernel.

Like MLIR's ``Dialect::verifyOperationAttribute``: a function that carries
``tile.grid``, ``tile.threads``, ``tile.target`` or the unit marker ``tile.kernel`` is a
kernel and those attributes must be well formed.  Other functions are host code, which
the lowerings leave alone (:func:`is_kernel`).  ``verify_dialect_attributes`` is called by tilepipe's module verifier
for every op.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i1,
)
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.kernel_errors import KernelAttributeError
from tilepipe.dialects.tile_params import PARAMETER_ATTRS, verify_parameter_attribute

KERNEL_ATTRS = ("tile.grid", "tile.threads", "tile.target", "tile.kernel")
# Code-generation choices a kernel may state (they do not make a function a kernel):
# ``tile.warpgroup_mma = false`` keeps its gemms off wgmma on sm_90a.
KERNEL_OPTION_ATTRS = ("tile.warpgroup_mma", "tile.warp_specialize")
REGISTER_SPACES = ("fragment", "local")  # per-thread registers


def is_kernel(op: Operation) -> bool:
    """Whether ``op`` is a function tilepipe compiles as a kernel: it carries one of
    the ``tile.*`` kernel attributes, or (kernels written before the marker existed)
    its body uses the tile or pipeline dialect.  A host function -- a helper
    ``(index) -> index``, a launcher -- has neither and is left to the host compiler."""
    from xdsl.dialects.func import FuncOp

    if not isinstance(op, FuncOp):
        return False
    if any(name in op.attributes for name in KERNEL_ATTRS):
        return True
    return any(
        inner.name.startswith(("tile.", "pipeline.")) for inner in op.walk() if inner is not op
    )


def verify_memory_spaces(kernel: Operation, target) -> None:
    """Every memref of ``kernel`` lives in a memory space ``target`` admits: an Ascend
    buffer in a CUDA kernel (or the reverse) would reach the lowering, or upstream MLIR,
    with no memory to map it to.  Register fragments have static shapes."""
    from tilepipe.core.targets import admitted_spaces

    def space_of(value: SSAValue) -> str | None:
        if not isinstance(value.type, MemRefType):
            return None
        attr = value.type.memory_space
        return attr.data if isinstance(attr, StringAttr) else "global"

    def check(value: SSAValue, op: Operation, what: str) -> None:
        space = space_of(value)
        if space is not None and space not in target.memory_spaces:
            raise KernelAttributeError(
                op,
                f"{what} is in memory space \"{space}\", which target '{target.name}' "
                f"does not have (it has {admitted_spaces(target)})",
            )
        # Registers are allocated when the kernel is compiled, per thread.
        if space in REGISTER_SPACES and DYNAMIC_INDEX in value.type.get_shape():
            raise KernelAttributeError(
                op,
                f"{what} is a register fragment of dynamic shape {value.type}; "
                "registers need a static shape (allocate the largest tile instead)",
            )

    for region in kernel.regions:
        for block in region.blocks:
            for arg in block.args:
                check(arg, kernel, f"argument %{arg.name_hint or arg.index}")
    for op in kernel.walk():
        if op is kernel:
            continue
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    check(arg, op, f"block argument #{arg.index}")
        for result in op.results:
            check(result, op, f"result #{result.index}")


def kernel_launch_shape(op: Operation) -> tuple[tuple[int, ...], int]:
    """(grid, threads) of a kernel from its attributes; (1,) and 128 when not given.
    A kernel whose grid is a ``tile.grid_dims`` op has it only for given arguments:
    the launchers use ``passes/analysis/grid.py``'s ``evaluate_grid`` instead."""
    grid_attr = op.attributes.get("tile.grid")
    threads_attr = op.attributes.get("tile.threads")
    grid = (
        tuple(grid_attr.get_values()) if isinstance(grid_attr, DenseArrayBase) else (1,)
    )
    threads = threads_attr.value.data if isinstance(threads_attr, IntegerAttr) else 128
    return grid, threads  # type: ignore[return-value]


def verify_dialect_attributes(op: Operation) -> None:
    from tilepipe.dialects.tile_launch import verify_argument_attributes
    from tilepipe.core.targets import TARGETS

    verify_argument_attributes(op)
    for name, attr in op.attributes.items():
        if not name.startswith("tile."):
            continue
        if name in PARAMETER_ATTRS:
            verify_parameter_attribute(op, name)
            continue
        if name in KERNEL_OPTION_ATTRS:
            if not (isinstance(attr, IntegerAttr) and attr.type == i1):
                raise VerifyException(f"'{name}' must be true or false")
            continue
        if name not in KERNEL_ATTRS:
            raise VerifyException(
                f"unknown tile dialect attribute '{name}' "
                f"(known: {', '.join(KERNEL_ATTRS + KERNEL_OPTION_ATTRS + PARAMETER_ATTRS)})"
            )
        if name == "tile.grid":
            values = (
                attr.get_values()
                if isinstance(attr, DenseArrayBase)
                and all(isinstance(v, int) for v in attr.get_values())
                else None
            )
            if not values or len(values) > 3 or any(v <= 0 for v in values):
                raise VerifyException(
                    "'tile.grid' must be an array<i64> of 1 to 3 positive extents"
                )
        elif name == "tile.threads":
            if not isinstance(attr, IntegerAttr) or attr.value.data <= 0:
                raise VerifyException("'tile.threads' must be a positive integer")
            if attr.value.data % 32 != 0 or attr.value.data > 1024:
                raise VerifyException(
                    "'tile.threads' must be a multiple of 32 (whole warps) and at "
                    f"most 1024, got {attr.value.data}"
                )
        elif name == "tile.kernel":
            if not isinstance(attr, UnitAttr):
                raise VerifyException("'tile.kernel' must be a unit attribute")
        elif name == "tile.target":
            if not isinstance(attr, StringAttr) or attr.data not in TARGETS:
                raise VerifyException(
                    f"unknown target {attr} (known: {', '.join(sorted(TARGETS))})"
                )
            verify_memory_spaces(op, TARGETS[attr.data])
