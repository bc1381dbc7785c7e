"""The problems ``gpu_check.py`` runs: kernels loaded from their files, resized to
square sizes or given launch shapes, with the grid they launch on, the FLOPs they do
and, for the GEMMs, a numpy reference (docs/gpu_check.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import InsertPoint, Rewriter

from tilepipe.drivers.compile import parse_kernel
# The check's own failures and the driver's are one kind: one except catches both.
from tilepipe.drivers.cuda_driver import CudaError as CheckFailed
from tilepipe.drivers.cuda_launch import launch_grid
from tilepipe.semantics import argument_names, select_kernel

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
DEFAULT_KERNELS = (
    EXAMPLES / "gemm.mlir",
    EXAMPLES / "flash_attention.mlir",
    EXAMPLES / "gemm_dynamic.mlir",
    EXAMPLES / "gemm_sm90a.mlir",  # 197 KB of shared memory: run where sm_90a is
    EXAMPLES / "flash_attention_sm90a.mlir",  # P from registers (wgmma's register A)
)
# Default kernels written for one architecture's resources: run only on GPUs that run it.
ARCH_ONLY = {"gemm_sm90a.mlir": "sm_90a", "flash_attention_sm90a.mlir": "sm_90a"}
# Sizes a default kernel with dynamic dimensions runs at (--shape overrides them):
# no block, K tile or warp tile divides them.
DEFAULT_SHAPES = {"gemm_dynamic.mlir": {"A": (1000, 77), "B": (77, 129), "C": (1000, 129)}}


def _constant(value) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def matmul_flops(func: FuncOp, grid: tuple[int, ...] | None = None) -> int | None:
    """2*M*N*K per executed tile.gemm, over the grid and constant trip counts (None
    with a dynamic trip count)."""
    grid = launch_grid(func) if grid is None else grid
    total = 0
    for op in func.walk():
        if op.name != "tile.gemm":
            continue
        m, n, k = op.tile_shape
        count = 2 * m * n * k
        parent = op.parent_op()
        while parent is not None and parent is not func:
            if parent.name in ("pipeline.for", "scf.for"):
                bounds = [_constant(v) for v in parent.operands[:3]]
                if None in bounds:
                    return None
                lb, ub, step = bounds
                count *= max(0, -(-(ub - lb) // step))
            parent = parent.parent_op()
        total += count
    return total * int(np.prod(grid)) if total else None


def square_size(func: FuncOp) -> int | None:
    """n when every argument of ``func`` is an n x n array."""
    shapes = {t.get_shape() if isinstance(t, MemRefType) else None for t in func.function_type.inputs.data}
    if len(shapes) != 1:
        return None
    (shape,) = shapes
    return shape[0] if shape is not None and len(shape) == 2 and shape[0] == shape[1] else None


def scale_square_problem(func: FuncOp, size: int) -> None:
    """Resize a kernel over n x n arrays to ``size``: argument types, grid, trip counts.

    The grid and every constant-bound pipelined loop scale with the problem, which is
    how the GEMM example's blocks and K loop relate to its 1024 x 1024 arrays.
    """
    old = square_size(func)
    assert old is not None, "scale_square_problem needs a kernel over n x n arrays"
    grid = func.attributes["tile.grid"].get_values()
    loops = [op for op in func.walk() if op.name == "pipeline.for"]
    bounds = [_constant(loop.ub) for loop in loops]
    if None in bounds:
        raise CheckFailed(f"--sizes {size}: a pipelined loop of @{func.sym_name.data} has no constant bound")
    if any(extent * size % old for extent in [*grid, *bounds]):
        raise CheckFailed(f"--sizes {size}: the grid {tuple(grid)} and the loops do not divide it")
    rewriter = Rewriter()
    for arg in list(func.body.block.args):
        t = arg.type
        rewriter.replace_value_with_new_type(arg, MemRefType(t.element_type, [size, size], t.layout, t.memory_space))
    func.function_type = FunctionType.from_lists(func.body.block.arg_types, func.function_type.outputs.data)
    func.attributes["tile.grid"] = DenseArrayBase.from_list(i64, [g * size // old for g in grid])
    for loop, ub in zip(loops, bounds):
        bound = arith.ConstantOp(IntegerAttr(ub * size // old, IndexType()))
        rewriter.insert_op(bound, InsertPoint.before(loop))
        loop.operands = [loop.lb, bound.result, *loop.operands[2:]]


def gemm_reference(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"C": inputs["A"].astype(np.float32) @ inputs["B"].astype(np.float32)}


# Kernels with a closed-form reference; any other runs tilepipe's tile-level interpreter.
NUMPY_REFERENCES = {
    "gemm": ("numpy float32 A@B", gemm_reference),
    "gemm_dynamic": ("numpy float32 A@B", gemm_reference),
    "gemm_sm90a": ("numpy float32 A@B", gemm_reference),
}


@dataclass
class Problem:
    path: Path
    label: str
    text: str
    func: FuncOp  # the tile-level kernel
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)  # of dynamic arguments
    index_args: dict[str, int] = field(default_factory=dict)


def load_problems(
    path: Path, sizes: list[int] | None, notes: list[str] | None = None,
    shapes: dict[str, tuple[int, ...]] | None = None, index_args: dict[str, int] | None = None,
) -> list[Problem]:
    """The kernel at ``path``, resized to each of ``sizes`` when it is over n x n arrays;
    its dynamic dimensions take ``shapes`` (or, for a default kernel, DEFAULT_SHAPES) and
    its index arguments ``index_args``, each by argument name."""
    text = path.read_text()
    func = select_kernel(parse_kernel(text, str(path)), None)
    names = argument_names(func)
    launch_shapes = {name: tuple(dims) for name, dims in (shapes or {}).items() if name in names}
    if not launch_shapes:  # sizes given on the command line replace the defaults
        launch_shapes = dict(DEFAULT_SHAPES.get(path.name, {}))
    launch_args = {name: value for name, value in (index_args or {}).items() if name in names}
    if not sizes or square_size(func) is None:
        if sizes and notes is not None:
            notes.append(f"{path.name}: --sizes resizes kernels over n x n arrays only; run at its own size")
        label = path.stem
        dynamic = [f"{n}={'x'.join(map(str, d))}" for n, d in launch_shapes.items()]
        dynamic += [f"{n}={v}" for n, v in launch_args.items()]
        if dynamic:
            label += " " + " ".join(dynamic)
        return [Problem(path, label, text, func, launch_shapes, launch_args)]
    problems = []
    for size in sizes:
        module = parse_kernel(text, str(path))
        func = select_kernel(module, None)
        scale_square_problem(func, size)
        problems.append(Problem(path, f"{path.stem} {size}x{size}", str(module), func))
    return problems
