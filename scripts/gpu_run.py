"""One configuration checked on the GPU: compile, check the ABI, launch on random
inputs, compare with the reference, time it next to a library GEMM, and print the
outcome (docs/gpu_check.md)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from tilepipe.drivers.compile import CompileError, compile_kernel
from tilepipe.drivers.cuda_driver import CudaDriver
from tilepipe.drivers.cuda_launch import KernelLaunch, launch_config
from tilepipe.semantics import argument_names, execute
from tilepipe.semantics.tile.grid_runner import random_array

from cublas import cublas_gemm
from gpu_calibration import model_prediction
from gpu_problems import NUMPY_REFERENCES, CheckFailed, Problem, matmul_flops

# |gpu - reference| <= TOLERANCE * max|reference|: summation order and exp2.approx
# differ from the reference, f32 accumulation keeps the difference ~1e-6 relative.
TOLERANCE = 1e-3


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


def sdpa_figure(q: np.ndarray, k: np.ndarray, v: np.ndarray, repeat: int) -> dict | None:
    """torch's scaled_dot_product_attention on the same one-head problem (Q comes
    pre-scaled, so scale 1), when torch with CUDA is installed."""
    try:
        import torch
        import torch.nn.functional as functional
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    tq, tk, tv = (torch.from_numpy(x).cuda()[None, None] for x in (q, k, v))

    def attention():
        return functional.scaled_dot_product_attention(tq, tk, tv, scale=1.0)

    for _ in range(3):
        attention()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        out = attention()
    stop.record()
    torch.cuda.synchronize()
    return {"name": "torch SDPA f16", "ms": start.elapsed_time(stop) / repeat,
            "result": out[0, 0].float().cpu().numpy(), "output": "O"}


def reference_figure(driver: CudaDriver, problem: Problem, inputs, repeat: int) -> dict | None:
    """A library kernel computing the same thing, timed: cuBLAS (or torch) for the
    GEMMs, torch's SDPA for flash attention; None where there is none."""
    if problem.path.stem.startswith("flash_attention") and {"Q", "K", "V"} <= set(inputs):
        return sdpa_figure(inputs["Q"], inputs["K"], inputs["V"], repeat)
    if problem.path.stem not in NUMPY_REFERENCES:
        return None
    a, b = inputs["A"], inputs["B"]
    return cublas_gemm(driver, a, b, repeat) or torch_figure(a, b, repeat)


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
    config = launch_config(func, compiled.module, problem.shapes, problem.index_args)
    grid, threads = config.grid, config.threads
    details["model"] = model_prediction(problem, arch, args.num_stages, details["registers"], threads)
    details.update(grid=list(grid), threads=threads, dynamic_shared_bytes=config.shared_bytes,
                   tensor_maps=len(config.tensor_maps))

    with KernelLaunch(driver, func, compiled.ptx, config, problem.shapes, problem.index_args) as launch:
        launch.check_abi()  # before anything touches the GPU
        rng = np.random.default_rng(args.seed)
        types = dict(zip(argument_names(func), (a.type for a in func.body.block.args)))
        inputs = {n: random_array(types[n], rng, shape) for n, shape in launch.sizes.items()}
        launch.load(inputs)
        details["parameters"] = launch.parameters
        launch.run()
        results = launch.results()
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

        ms = driver.milliseconds_per_call(launch.run, args.repeat)
        flops = matmul_flops(func, grid)
        if flops is None and problem.path.stem in NUMPY_REFERENCES:  # a dynamic K loop
            (m, k), n = inputs["A"].shape, inputs["B"].shape[1]
            flops = 2 * m * n * k
        details.update(ms=ms, repeat=args.repeat, flops=flops, tflops=_tflops(flops, ms))
        figure = reference_figure(driver, problem, inputs, args.repeat)
        if figure is not None:
            output = figure.pop("output", "C")
            library_error = float(np.max(np.abs(figure.pop("result") - expected[output])))
            details["library"] = {**figure, "tflops": _tflops(flops, figure["ms"]), "max_abs_error": library_error}


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
            f"{model['cycles_per_iteration']} per iteration, {model['kernel_cycles']} for the kernel "
            f"({model['blocks_per_sm']}/SM {model['limiter']}, {model['waves']} waves)"
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
