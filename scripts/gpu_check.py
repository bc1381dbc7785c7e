#!/usr/bin/env python3
"""Run tilepipe's CUDA kernels on a real GPU: correctness against numpy, and TFLOP/s.

    python scripts/gpu_check.py [KERNEL.mlir ...] [--num-stages N[,M...]] [--sizes 1024,4096]
                                [--shape NAME=D0xD1 ...] [--index-arg NAME=V ...]
                                [--repeat 20] [--json]

For each kernel (default: examples/gemm.mlir, examples/flash_attention.mlir,
examples/gemm_dynamic.mlir at M, N, K = 1000, 129, 77, and on compute capability 9.0
examples/gemm_sm90a.mlir) the script compiles it with ``tilepipe.drivers.compile.compile_kernel`` for the GPU's own
architecture, loads the PTX with the CUDA driver API (``libcuda.so.1`` through ctypes, no
extra package), launches it on random inputs with the kernel's grid (its ``tile.grid``, or its
``tile.grid_dims`` evaluated over the launch's sizes and index arguments), threads and
dynamic shared memory, compares the result with a reference and times repeated launches with
CUDA events.  Without a driver or a GPU it prints ``skipped: ...`` and exits 0.

Calibration: every configuration (kernel, size, each ``--num-stages``) also records the
models' prediction (docs/schedule_sim.md) next to its measured time, and the run ends
with how well the model's ranking of the configurations held; ``--calibrate [FILE]``
fits the models' constants to the measured times and writes them where ``tilepipe
tune`` reads them.

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
import sys
from pathlib import Path

from tilepipe.drivers.compile import CompileError
from tilepipe.semantics import KernelError, argument_names  # noqa: F401 (argument_names: for the tests)
from tilepipe.semantics.memory import element_format  # noqa: F401 (for the tests)
from tilepipe.core.source import index_assignment, shape_assignment

from tilepipe.drivers.cuda_driver import CudaDriver, CudaUnavailable
from tilepipe.drivers.kernel_abi import (  # noqa: F401 (for the tests)
    PtxParam,
    argument_shapes,
    check_abi,
    kernel_arguments,
    memref_descriptor,
    ptx_parameters,
)

# The helpers beside this script; what the tests use from them is re-exported here.
from gpu_calibration import calibration, fit_constants, format_calibration
from gpu_problems import (  # noqa: F401
    ARCH_ONLY,
    CheckFailed,
    DEFAULT_KERNELS,
    EXAMPLES,
    REPO,
    gemm_reference,
    launch_grid,
    load_problems,
    matmul_flops,
)
from gpu_run import TOLERANCE, Outcome, format_outcome, run_problem, worst_difference  # noqa: F401


def archs_for(major: int, minor: int) -> list[str]:
    """The tilepipe targets a compute capability runs: sm_80 on Ampere/Ada; on Hopper
    (9.0) the portable sm_90 and the Hopper path sm_90a (tensor maps), side by side;
    newer GPUs JIT the sm_90 PTX (sm_90a code runs on 9.0 only)."""
    if major < 8:
        raise CudaUnavailable(f"compute capability {major}.{minor}: tilepipe targets sm_80 and newer")
    if major == 8:
        return ["sm_80"]
    return ["sm_90", "sm_90a"] if (major, minor) == (9, 0) else ["sm_90"]


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
    parser.add_argument("--arch", type=lambda text: text.split(","),
                        help="run only these of the GPU's targets, e.g. sm_90a (default: all it runs)")
    parser.add_argument("--calibrate", nargs="?", const="", metavar="FILE",
                        help="fit the model's constants to the measured times and write them to "
                        "FILE (default: calibration.json in tilepipe's cache directory, where "
                        "'tilepipe tune' finds it)")
    return parser


def write_calibration(measured: list, device: dict, destination: str, scales=None) -> str:
    """Fit the constants of every target measured (``scales``: the rate scales tried,
    default RATE_SCALES) and write them; the line to print."""
    from tilepipe.drivers.tune import default_calibration_file
    from tilepipe.schedule_sim.calibration import CalibrationError, write_calibrations

    path = Path(destination) if destination else default_calibration_file()
    try:
        fitted = fit_constants(measured, device["name"], scales)
    except CalibrationError as err:
        return f"gpu_check: calibration not written: {err}"
    if not fitted:
        return "gpu_check: calibration not written: no configuration ran with a model prediction"
    write_calibrations(path, fitted)
    described = ", ".join(
        f"{c.target}: {c.seconds_per_cycle * 1e9:.3f} ns/cycle, copy x{c.copy_rate_scale}, "
        f"gemm x{c.gemm_rate_scale}, {c.relative_error:.0%} rms error over {c.points}" for c in fitted)
    return f"gpu_check: calibration written to {path} ({described})"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    notes: list[str] = []
    printed = 0
    kernels = args.kernels
    default = not kernels
    if default:
        kernels = [p for p in DEFAULT_KERNELS if p.exists()]
        notes += [f"{p.relative_to(REPO)} does not exist: skipped" for p in DEFAULT_KERNELS if not p.exists()]
    try:
        driver = CudaDriver(args.cuda_driver)
        device = driver.describe()
        major, minor = map(int, device["compute_capability"].split("."))
        archs = archs_for(major, minor)
        if args.arch:
            archs = [a for a in archs if a in args.arch]
            if not archs:
                raise CudaUnavailable(f"--arch {','.join(args.arch)}: this GPU runs {', '.join(archs_for(major, minor))}")
    except CudaUnavailable as err:
        message = f"skipped: no CUDA driver / no GPU ({err})"
        print(json.dumps({"skipped": message}) if args.json else f"gpu_check: {message}")
        return 0
    outcomes: list[Outcome] = []
    measured: list = []  # (problem, outcome) of every configuration that ran
    if not args.json:
        print(f"gpu_check: {device['name']} (compute capability {device['compute_capability']}, "
              f"driver {device['driver']}) -> {', '.join(archs)}")
    for path in kernels:
        if default and ARCH_ONLY.get(path.name, archs[0]) not in archs:
            notes.append(f"{path.name}: for {ARCH_ONLY[path.name]} only, which this GPU does not run")
            if not args.json:
                print(f"gpu_check: note: {notes[-1]}")
            printed = len(notes)
            continue
        try:
            problems = load_problems(path, args.sizes, notes, dict(args.shape), dict(args.index_arg))
        except (CompileError, CheckFailed, KernelError, OSError) as err:
            problems, failed = [], Outcome(str(path), archs[0], None, message=str(err))
            outcomes.append(failed)
            if not args.json:
                print(format_outcome(failed))
        if not args.json:
            for note in notes[printed:]:
                print(f"gpu_check: note: {note}")
            printed = len(notes)
        for problem in problems:
            for arch in archs:
                for stages in args.num_stages or [None]:
                    config = argparse.Namespace(**{**vars(args), "num_stages": stages})
                    outcomes.append(run_problem(driver, problem, arch, config))
                    measured.append((problem, outcomes[-1]))
                    if not args.json:
                        print(format_outcome(outcomes[-1]))
    summary = calibration(outcomes)
    if not args.json and summary["points"]:
        print(format_calibration(summary))
    if args.calibrate is not None:
        line = write_calibration(measured, device, args.calibrate)
        notes.append(line.removeprefix("gpu_check: "))
        if not args.json:
            print(line)
    if args.json:
        report = {"device": device, "archs": archs, "notes": notes, "calibration": summary,
                  "results": [{"kernel": o.kernel, "arch": o.arch, "num_stages": o.num_stages,
                               "ok": o.ok, "message": o.message, **o.details} for o in outcomes]}
        print(json.dumps(report, indent=2))
    return 0 if outcomes and all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
