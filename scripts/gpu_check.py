#!/usr/bin/env python3
"""Run tilepipe's CUDA kernels on a real GPU: correctness against numpy, and TFLOP/s.

    python scripts/gpu_check.py [KERNEL.mlir ...] [--num-stages N[,M...]] [--sizes 1024,4096]
                                [--shape NAME=D0xD1 ...] [--index-arg NAME=V ...]
                                [--repeat 20] [--json]

For each kernel (default: examples/gemm.mlir, examples/flash_attention.mlir, and
examples/gemm_dynamic.mlir at M, N, K = 1000, 129, 77) the script compiles it with ``tilepipe.drivers.compile.compile_kernel`` for the GPU's own
architecture, loads the PTX with the CUDA driver API (``libcuda.so.1`` through ctypes, no
extra package), launches it on random inputs with the kernel's grid (its ``tile.grid``, or its
``tile.grid_dims`` evaluated over the launch's sizes and index arguments), threads and
dynamic shared memory, compares the result with a reference and times repeated launches with
CUDA events.  Without a driver or a GPU it prints ``skipped: ...`` and exits 0.

Calibration: every configuration (kernel, size, each ``--num-stages``) also records the
schedule simulator's prediction (docs/schedule_sim.md) next to its measured time, and
the run ends with how well the model's ranking of the configurations held.

The kernel ABI is upstream MLIR's: every memref argument is passed as its flattened
descriptor (allocated pointer, aligned pointer, offset, sizes, strides), every index
argument as an i64; see docs/gpu_check.md.  A dynamic dimension takes its size from
``--shape NAME=D0xD1`` (every kernel with an argument of that name), an index argument
its value from ``--index-arg NAME=V``.  Before launching, the packed arguments are checked against the
``.param`` list of the PTX entry.  Exit status: 0 all checks passed (or skipped),
1 a kernel failed to compile, load, run or match its reference.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
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

from tilepipe.drivers.compile import CompileError, compile_kernel, parse_kernel
from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.passes.analysis.grid import GridEvaluationError, evaluate_grid
from tilepipe.semantics import KernelError, argument_names, execute, select_kernel
from tilepipe.semantics.memory import element_format
from tilepipe.semantics.tile.runner import random_array
from tilepipe.core.source import index_assignment, shape_assignment

from kernel_abi import (  # noqa: F401 (re-exported for the tests)
    PtxParam,
    argument_shapes,
    check_abi,
    kernel_arguments,
    memref_descriptor,
    ptx_parameters,
)
from cuda_driver import (
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    CheckFailed,
    CudaDriver,
    CudaUnavailable,
    cublas_gemm,
)

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
DEFAULT_KERNELS = (EXAMPLES / "gemm.mlir", EXAMPLES / "flash_attention.mlir", EXAMPLES / "gemm_dynamic.mlir")
# Sizes a default kernel with dynamic dimensions runs at (--shape overrides them):
# no block, K tile or warp tile divides them.
DEFAULT_SHAPES = {"gemm_dynamic.mlir": {"A": (1000, 77), "B": (77, 129), "C": (1000, 129)}}
STATIC_SHARED_LIMIT = 48 * 1024  # above it, a kernel must opt in to more shared memory
# |gpu - reference| <= TOLERANCE * max|reference|: summation order and exp2.approx
# differ from the reference, f32 accumulation keeps the difference ~1e-6 relative.
TOLERANCE = 1e-3


def arch_for(major: int, minor: int) -> str:
    """The tilepipe target for a compute capability (newer GPUs JIT the sm_90 PTX)."""
    if major < 8:
        raise CudaUnavailable(f"compute capability {major}.{minor}: tilepipe targets sm_80 and newer")
    return "sm_80" if major == 8 else "sm_90"


# --------------------------------------------------------------------------- problems


def _constant(value) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def launch_grid(
    func: FuncOp, shapes: dict[str, tuple[int, ...]] | None = None,
    index_args: dict[str, int] | None = None,
) -> tuple[int, ...]:
    """The grid ``func`` is launched on: its ``tile.grid``, or its ``tile.grid_dims``
    over the launch's argument shapes and index arguments."""
    try:
        return evaluate_grid(func, index_args, shapes)
    except GridEvaluationError as err:
        raise CheckFailed(f"{err} (at {err.op.name})") from None


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


# --------------------------------------------------------------------------- reference figures


def torch_figure(a: np.ndarray, b: np.ndarray, repeat: int) -> dict | None:
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    for _ in range(3):
        torch.matmul(ta, tb)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        out = torch.matmul(ta, tb)
    stop.record()
    torch.cuda.synchronize()
    return {"name": "torch.matmul f16", "ms": start.elapsed_time(stop) / repeat,
            "result": out.float().cpu().numpy()}


def reference_figure(driver: CudaDriver, problem: Problem, inputs, repeat: int) -> dict | None:
    if problem.path.stem not in NUMPY_REFERENCES:
        return None  # no library kernel computes the same thing
    a, b = inputs["A"], inputs["B"]
    return cublas_gemm(driver, a, b, repeat) or torch_figure(a, b, repeat)


# --------------------------------------------------------------------------- the check


@dataclass
class Outcome:
    kernel: str
    arch: str
    num_stages: int | None
    ok: bool = False
    message: str = ""
    details: dict = field(default_factory=dict)


def worst_difference(results, expected) -> tuple[str, float, float]:
    """(argument, max |error|, allowed error) of the argument furthest from its reference.

    Each argument is allowed TOLERANCE times its own largest reference magnitude; a NaN
    is as far as it gets.
    """
    worst: tuple[float, str, float, float] | None = None
    for name, reference in expected.items():
        error = float(np.max(np.abs(results[name].astype(np.float64) - reference)))
        bound = TOLERANCE * max(float(np.max(np.abs(reference))), float(np.finfo(np.float32).tiny))
        ratio = math.inf if math.isnan(error) else error / bound
        if worst is None or ratio > worst[0]:
            worst = (ratio, name, error, bound)
    assert worst is not None, "a kernel without arguments has nothing to compare"
    return worst[1:]


def _tflops(flops: int | None, ms: float) -> float | None:
    return None if flops is None or ms <= 0 else flops / (ms * 1e-3) / 1e12


def run_problem(driver: CudaDriver, problem: Problem, arch: str, args) -> Outcome:
    """Compile, launch, compare and time one problem; a failure is the outcome's message."""
    outcome = Outcome(problem.label, arch, args.num_stages)
    try:
        _check(driver, problem, arch, args, outcome.details)
        outcome.ok = True
    except CheckFailed as err:
        outcome.message = str(err)
    return outcome


def _check(driver: CudaDriver, problem: Problem, arch: str, args, details: dict) -> None:
    func = problem.func
    kernel = func.sym_name.data
    start = time.perf_counter()
    try:
        compiled = compile_kernel(problem.text, str(problem.path), arch, num_stages=args.num_stages)
    except CompileError as err:
        raise CheckFailed("compilation failed:\n" + "\n".join(map(str, err.diagnostics))) from None
    details["compile_s"] = time.perf_counter() - start
    details["registers"] = next((r.registers for r in compiled.ptxas if r.kernel == kernel), None)
    details["model"] = model_prediction(problem, arch, args.num_stages)
    grid = launch_grid(func, problem.shapes, problem.index_args)
    threads = kernel_launch_shape(func)[1]
    shared = compiled.dynamic_shared_bytes.get(kernel, 0)
    details.update(grid=list(grid), threads=threads, dynamic_shared_bytes=shared)

    shapes = argument_shapes(func, problem.shapes)
    names = list(shapes)  # the memref arguments
    # The ABI check runs before anything touches the GPU.
    check_abi(
        kernel_arguments(func, dict.fromkeys(names, 0), problem.shapes, problem.index_args),
        ptx_parameters(compiled.ptx, kernel), kernel,
    )
    rng = np.random.default_rng(args.seed)
    types = dict(zip(argument_names(func), (a.type for a in func.body.block.args)))
    formats = {n: element_format(types[n].element_type) for n in names}
    inputs = {n: random_array(types[n], rng, shapes[n]) for n in names}
    pointers = {n: driver.upload(formats[n].to_storage(inputs[n])) for n in names}
    module = None
    try:
        arguments = kernel_arguments(func, pointers, problem.shapes, problem.index_args)
        details["parameters"] = len(arguments)
        module = driver.load_ptx(compiled.ptx)
        function = driver.function(module, kernel)
        if shared > STATIC_SHARED_LIMIT:
            limit = driver.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            if shared > limit:
                raise CheckFailed(f"needs {shared} B of dynamic shared memory, the GPU allows {limit} B")
            driver.call("cuFuncSetAttribute", function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared)
        values = [value for _, value in arguments]
        driver.launch(function, grid, threads, shared, values)
        driver.call("cuCtxSynchronize")
        results = {
            n: formats[n].from_storage(driver.download(pointers[n], formats[n].to_storage(inputs[n])))
            for n in names
        }
        reference_name, reference = NUMPY_REFERENCES.get(problem.path.stem, (None, None))
        if reference is not None:
            expected = reference(inputs)
        else:
            reference_name = "tilepipe interpreter (tile level)"
            expected = execute(
                problem.text, inputs=inputs, index_args=problem.index_args, file_name=str(problem.path)
            ).outputs
        name, error, bound = worst_difference(results, expected)
        details.update(reference=reference_name, max_abs_error=error, error_bound=bound)
        if not error <= bound:  # also false for NaN
            raise CheckFailed(
                f"mismatch: max |error| {error:.3g} > {bound:.3g} in %{name} (reference: {reference_name})"
            )

        ms = driver.milliseconds_per_call(
            lambda: driver.launch(function, grid, threads, shared, values), args.repeat
        )
        flops = matmul_flops(func, grid)
        if flops is None and problem.path.stem in NUMPY_REFERENCES:  # a dynamic K loop
            (m, k), n = inputs["A"].shape, inputs["B"].shape[1]
            flops = 2 * m * n * k
        details.update(ms=ms, repeat=args.repeat, flops=flops, tflops=_tflops(flops, ms))
        figure = reference_figure(driver, problem, inputs, args.repeat)
        if figure is not None:
            library_error = float(np.max(np.abs(figure.pop("result") - expected["C"])))
            details["library"] = {**figure, "tflops": _tflops(flops, figure["ms"]), "max_abs_error": library_error}
    finally:
        if module is not None:
            driver.unload(module)
        for pointer in pointers.values():
            driver.free(pointer)


def model_prediction(problem: Problem, arch: str, num_stages: int | None) -> dict:
    """The schedule simulator's cycles for this configuration: block 0 of its scheduled
    level with the target's latencies, and the grid's blocks one after another."""
    from xdsl.utils.exceptions import DiagnosticException

    from tilepipe.drivers.compile import retarget
    from tilepipe.schedule_sim.flow import scheduled_module, simulate_kernels
    from tilepipe.core.targets import get_target

    try:
        module = parse_kernel(problem.text, str(problem.path))
        retarget(module, get_target(arch), num_stages)
        reports = simulate_kernels(scheduled_module(module))
    except (CompileError, KernelError, DiagnosticException) as err:
        return {"error": str(err)}
    report = next(r for name, r in reports if name == problem.func.sym_name.data)
    grid = launch_grid(problem.func, problem.shapes, problem.index_args)
    return {"cycles_per_block": report.total_cycles,
            "cycles_per_iteration": round(report.steady_step, 2),
            "grid_cycles": report.total_cycles * math.prod(grid)}


def calibration(outcomes: list[Outcome]) -> dict:
    """Model vs measurement over the configurations that ran: each one's measured
    milliseconds per million predicted grid cycles, and how many pairs of
    configurations of one kernel the model orders as the GPU did."""
    rows = [o for o in outcomes if o.ok and "grid_cycles" in o.details.get("model", {})]
    points = [{"kernel": o.kernel, "num_stages": o.num_stages, "ms": o.details["ms"],
               "grid_cycles": o.details["model"]["grid_cycles"],
               "ms_per_mcycle": o.details["ms"] / o.details["model"]["grid_cycles"] * 1e6}
              for o in rows]
    agree = pairs = 0
    for i, a in enumerate(points):
        for b in points[i + 1:]:
            if a["kernel"] != b["kernel"] or a["grid_cycles"] == b["grid_cycles"]:
                continue
            pairs += 1
            agree += (a["grid_cycles"] < b["grid_cycles"]) == (a["ms"] < b["ms"])
    return {"points": points, "pairs": pairs, "pairs_ordered_alike": agree}


def format_calibration(summary: dict) -> str:
    lines = ["gpu_check: calibration (schedule simulator vs measured)"]
    for p in summary["points"]:
        stages = "" if p["num_stages"] is None else f" num_stages={p['num_stages']}"
        lines.append(f"  {p['kernel']}{stages}: predicted {p['grid_cycles']} grid cycles, "
                     f"measured {p['ms']:.3f} ms ({p['ms_per_mcycle']:.3f} ms per million cycles)")
    lines.append(f"  ranking: {summary['pairs_ordered_alike']} of {summary['pairs']} pairs of "
                 "configurations ordered as measured")
    return "\n".join(lines)


def format_outcome(outcome: Outcome) -> str:
    d = outcome.details
    stages = "" if outcome.num_stages is None else f"  num_stages={outcome.num_stages}"
    lines = [f"{outcome.kernel}  {outcome.arch}{stages}"]
    if "compile_s" in d:
        lines.append(f"  compile    {d['compile_s']:.1f} s, {d['registers']} registers")
    if "parameters" in d:
        grid = " x ".join(map(str, d["grid"]))
        lines.append(
            f"  launch     grid {grid}, {d['threads']} threads, {d['dynamic_shared_bytes']} B dynamic "
            f"shared, {d['parameters']} parameters (match the PTX .param list)"
        )
    model = d.get("model")
    if model is not None:
        lines.append(
            f"  model      {model['cycles_per_block']} cycles per block, "
            f"{model['cycles_per_iteration']} per iteration, {model['grid_cycles']} for the grid"
            if "error" not in model else f"  model      not simulated: {model['error']}"
        )
    if "max_abs_error" in d and outcome.ok:
        lines.append(f"  check      ok: max |error| {d['max_abs_error']:.2e} <= {d['error_bound']:.2e} ({d['reference']})")
    if not outcome.ok:
        lines.append("  FAILED     " + outcome.message.replace("\n", "\n             "))
        return "\n".join(lines)
    rate = "n/a" if d["tflops"] is None else f"{d['tflops']:.1f} TFLOP/s"
    lines.append(f"  time       {d['ms']:.3f} ms per launch (mean of {d['repeat']}), {rate}")
    library = d.get("library")
    if library is None:
        lines.append("  reference  no reference available")
    else:
        rate = "n/a" if library["tflops"] is None else f"{library['tflops']:.1f} TFLOP/s"
        lines.append(f"  reference  {library['name']}: {library['ms']:.3f} ms, {rate} (max |error| {library['max_abs_error']:.2e})")
    return "\n".join(lines)


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected sizes like 1024,2048, got '{text}'") from None
    if any(s <= 0 for s in sizes):
        raise argparse.ArgumentTypeError("sizes must be positive")
    return sizes


def _stages(text: str) -> list[int]:
    try:
        stages = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected depths like 2 or 1,2,3, got '{text}'") from None
    if any(s <= 0 for s in stages):
        raise argparse.ArgumentTypeError("num_stages must be positive")
    return stages


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpu_check.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", type=Path, help="tile kernels (default: the examples)")
    parser.add_argument("--num-stages", type=_stages,
                        help="override num_stages of every pipelined loop; a list (1,2,3) runs each")
    parser.add_argument("--sizes", type=_sizes, help="square problem sizes n (n x n arrays), e.g. 1024,4096")
    parser.add_argument("--shape", type=shape_assignment, action="append", default=[],
                        help="sizes of a dynamic memref argument, NAME=D0xD1... (repeatable; "
                        "applies to every kernel with an argument of that name)")
    parser.add_argument("--index-arg", type=index_assignment, action="append", default=[],
                        help="value of an index argument, NAME=V (repeatable)")
    parser.add_argument("--repeat", type=int, default=20, help="timed launches (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--cuda-driver", default="libcuda.so.1", help="driver library (default libcuda.so.1)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    notes: list[str] = []
    printed = 0
    kernels = args.kernels
    if not kernels:
        kernels = [p for p in DEFAULT_KERNELS if p.exists()]
        notes += [f"{p.relative_to(REPO)} does not exist: skipped" for p in DEFAULT_KERNELS if not p.exists()]
    try:
        driver = CudaDriver(args.cuda_driver)
        device = driver.describe()
        major, minor = map(int, device["compute_capability"].split("."))
        arch = arch_for(major, minor)
    except CudaUnavailable as err:
        message = f"skipped: no CUDA driver / no GPU ({err})"
        print(json.dumps({"skipped": message}) if args.json else f"gpu_check: {message}")
        return 0
    outcomes: list[Outcome] = []
    if not args.json:
        print(f"gpu_check: {device['name']} (compute capability {device['compute_capability']}, "
              f"driver {device['driver']}) -> {arch}")
    for path in kernels:
        try:
            problems = load_problems(path, args.sizes, notes, dict(args.shape), dict(args.index_arg))
        except (CompileError, CheckFailed, KernelError, OSError) as err:
            problems, failed = [], Outcome(str(path), arch, None, message=str(err))
            outcomes.append(failed)
            if not args.json:
                print(format_outcome(failed))
        if not args.json:
            for note in notes[printed:]:
                print(f"gpu_check: note: {note}")
            printed = len(notes)
        for problem in problems:
            for stages in args.num_stages or [None]:
                config = argparse.Namespace(**{**vars(args), "num_stages": stages})
                outcomes.append(run_problem(driver, problem, arch, config))
                if not args.json:
                    print(format_outcome(outcomes[-1]))
    summary = calibration(outcomes)
    if not args.json and summary["points"]:
        print(format_calibration(summary))
    if args.json:
        report = {"device": device, "arch": arch, "notes": notes, "calibration": summary,
                  "results": [{"kernel": o.kernel, "arch": o.arch, "num_stages": o.num_stages,
                               "ok": o.ok, "message": o.message, **o.details} for o in outcomes]}
        print(json.dumps(report, indent=2))
    return 0 if outcomes and all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
