"""``tilepipe``: the end-to-end driver.

    tilepipe compile KERNEL.mlir --target sm_80|sm_90|sm_90a --emit nvvm|llvm|ptx -o OUT [--num-stages N] [--mlir-print-debuginfo] [--host-launch] [--no-tensor-maps] [--isolate-upstream]
    tilepipe compile KERNEL.mlir --target ascend910b --emit ascend|ascendc -o OUT [--syntax-check]

compiles a tile-level kernel through every registered pass of the CUDA flow, upstream
MLIR and ``ptxas``, writes the requested stage to OUT (stdout without ``-o``) and prints
a one-screen summary to stderr: what each stage did (stages, versions, arena bytes,
syncs), the time it took, and registers / shared memory from ``ptxas -v``.  For an
Ascend target it runs the Ascend passes (in the order docs/ascend.md gives) and emits
the ``ascend`` dialect or AscendC source, with a summary of versions, buffers, sync
points and flag ids.  Upstream MLIR runs in this process; ``--isolate-upstream`` runs
it in a spawned child, so that an LLVM abort is reported as an error (exit 1).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tilepipe.drivers.compile import compile_module, named_targets, parse_kernel
from tilepipe.core.diagnostics import Diagnostic, InputError
from tilepipe.drivers.command_line import DriverArgumentParser, run_driver
from tilepipe.core.source import read_source, shape_assignment
from tilepipe.core.targets import DEFAULT_TARGET, TARGET_ALIASES, TARGETS, CudaTarget
from tilepipe.core.flows import levels_of

CUDA_EMITS = levels_of("cuda")
ASCEND_EMITS = levels_of("ascend")


# What ``--help`` shows: plain text (the module docstring is reST for developers).
COMPILE_DESCRIPTION = """\
Compile a tile-level kernel end to end. For sm_80/sm_90: every tilepipe pass of the
CUDA flow, then upstream MLIR to NVVM, LLVM or PTX, checked by ptxas. For ascend910b:
the Ascend passes, then the ascend dialect or AscendC source. The requested stage goes
to -o (stdout by default); a one-screen summary of what each stage did goes to stderr."""

COMPILE_EXAMPLES = """\
examples:
  tilepipe compile examples/gemm.mlir --target sm_80 -o gemm.ptx
  tilepipe compile examples/gemm.mlir --target sm_90 --emit llvm --num-stages 2
  tilepipe compile examples/ascend_vadd.mlir --target ascend910b --syntax-check -o vadd.cpp"""


def _parser() -> argparse.ArgumentParser:
    parser = DriverArgumentParser(
        prog="tilepipe",
        description="tilepipe: the end-to-end driver of the tilepipe compiler.",
        epilog="Run 'tilepipe compile --help' for the options.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    compile_cmd = commands.add_parser(
        "compile",
        help="compile a tile kernel to PTX/NVVM/LLVM (CUDA) or AscendC (Ascend)",
        description=COMPILE_DESCRIPTION,
        epilog=COMPILE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    compile_cmd.add_argument("kernel", help="tile-level kernel (.mlir)")
    compile_cmd.add_argument(
        "--target", choices=sorted([*TARGETS, *TARGET_ALIASES]), default=None,
        help="a target record, or 'ascend' for the default 910B-class Ascend target "
        f"(default: the one the kernels name in tile.target, else {DEFAULT_TARGET})",
    )
    compile_cmd.add_argument(
        "--emit", choices=list(dict.fromkeys(CUDA_EMITS + ASCEND_EMITS)),
        help="ptx (default for CUDA targets), llvm, nvvm; ascendc (default for Ascend), ascend; "
        "scheduled: the tile IR after sync insertion, before lowering",
    )
    compile_cmd.add_argument(
        "--syntax-check", action="store_true",
        help="Ascend: check the emitted AscendC with g++ -fsyntax-only",
    )
    compile_cmd.add_argument(
        "--index-mode", choices=("iteration", "counter"), default="iteration",
        help="Ascend: multi-buffer slot clock of guarded storage that names none",
    )
    compile_cmd.add_argument("-o", "--output", help="output file (default or '-': stdout)")
    compile_cmd.add_argument(
        "--num-stages", type=int, help="override num_stages of every pipelined loop"
    )
    compile_cmd.add_argument(
        "--no-ptxas", action="store_true", help="do not assemble the PTX with ptxas"
    )
    compile_cmd.add_argument(
        "--mlir-print-debuginfo", "--print-debuginfo", dest="debug_info", action="store_true",
        help="CUDA: print the source locations (loc(...)) in the nvvm and llvm output, "
        "as mlir-opt does with this flag",
    )
    compile_cmd.add_argument(
        "--host-launch", action="store_true",
        help="CUDA: keep a host function per kernel that gpu.launch_func's it with the "
        "kernel's grid, block and dynamic shared memory (at the nvvm and llvm levels; "
        "host code of the input that calls a kernel needs it)",
    )
    compile_cmd.add_argument(
        "--no-tensor-maps", dest="tensor_maps", action="store_false",
        help="sm_90a: keep the row-wise bulk copies instead of tensor-map copies "
        "(tma-copy{tensor_maps=false})",
    )
    compile_cmd.add_argument(
        "--no-wgmma", dest="warpgroup_mma", action="store_false",
        help="sm_90a: keep the gemms on mma.sync instead of wgmma "
        "(tile.warpgroup_mma = false on every kernel)",
    )
    compile_cmd.add_argument(
        "--no-warp-specialize", dest="warp_specialize", action="store_false",
        help="sm_90a: keep the pipelined loops unspecialized, all warps copying and "
        "computing (tile.warp_specialize = false on every kernel)",
    )
    compile_cmd.add_argument(
        "--isolate-upstream", action="store_true",
        help="CUDA: run upstream MLIR in a spawned child process, so that an LLVM "
        "abort (fatal error, assertion) is reported as an error instead of ending the driver",
    )
    compile_cmd.add_argument(
        "--schedule-svg", metavar="FILE",
        help="CUDA: draw the simulated schedule of the scheduled level (Gantt chart)",
    )
    compile_cmd.add_argument(
        "-q", "--quiet", action="store_true", help="no summary on stderr"
    )
    compile_cmd.add_argument(
        "--show-traceback", action="store_true",
        help="on an internal error, print the Python traceback",
    )
    _add_tune(commands)
    return parser


def _add_tune(commands) -> None:
    tune_cmd = commands.add_parser(
        "tune",
        help="rank num_stages (and tile shapes) by predicted kernel time under every budget",
        description="Compile every configuration (each tile shape -- a KERNEL, or each "
        "combination of the tile sizes a KERNEL declares in 'tile.tune' -- times each "
        "num_stages), reject those over a budget (shared-memory arena, registers, "
        "Ascend flags and lock pool), rank the rest by the predicted kernel time (one "
        "block's simulated cycles, the blocks in waves over the target's SMs at their "
        "occupancy), print the table and write the chosen kernel.",
    )
    tune_cmd.add_argument("kernels", nargs="+", metavar="KERNEL", help="tile-level kernel(s)")
    tune_cmd.add_argument(
        "--target", choices=sorted([*TARGETS, *TARGET_ALIASES]), default=None,
        help="a target record, or 'ascend' (default: the one the kernels name in "
        f"tile.target, else {DEFAULT_TARGET})",
    )
    tune_cmd.add_argument(
        "--num-stages", default="1-5", help="depths: N, N-M or N,M,... (default 1-5)"
    )
    tune_cmd.add_argument("--index-args", default="", help="index arguments, e.g. n=4,m=2")
    tune_cmd.add_argument(
        "--shape", type=shape_assignment, action="append", default=[],
        help="sizes of a dynamically shaped memref argument, NAME=D0xD1... (repeatable): "
        "the grid, trip counts and cycles are those of this problem size",
    )
    tune_cmd.add_argument("--no-ptxas", action="store_true", help="skip the register check")
    tune_cmd.add_argument("-j", "--jobs", type=int, help="worker processes (default: all cores)")
    tune_cmd.add_argument("-o", "--output", help="write the chosen kernel here (default: stdout)")
    tune_cmd.add_argument(
        "--calibration", metavar="FILE",
        help="fitted model constants (scripts/gpu_check.py --calibrate); default: "
        "calibration.json in the cache directory if it has the target, else the public peak figures",
    )
    tune_cmd.add_argument(
        "--no-cache", action="store_true",
        help="evaluate every configuration, neither reading nor writing the tuning cache "
        "($TILEPIPE_CACHE_DIR, else $XDG_CACHE_HOME/tilepipe, else ~/.cache/tilepipe)",
    )
    tune_cmd.add_argument(
        "--executor", choices=("local", "ray"), default="local",
        help="where configurations are evaluated: this machine's process pool (default) "
        "or a Ray cluster (the 'ray' extra)",
    )
    tune_cmd.add_argument("--address", help="the Ray cluster to connect to (default: RAY_ADDRESS, "
                          "else a local Ray instance for this run)")
    tune_cmd.add_argument("--json", metavar="FILE",
                          help="write the table, the pick and the model as JSON ('-': stdout)")
    tune_cmd.add_argument("--svg", metavar="FILE",
                          help="draw the predicted time of every configuration (SVG)")
    tune_cmd.add_argument("-q", "--quiet", action="store_true",
                          help="no table and no progress bar on stderr")
    tune_cmd.add_argument("--progress", action="store_true",
                          help="draw the progress bar even when stderr is not a terminal")


def run_tune(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from tilepipe.drivers.tune import run_tune_command
    from tilepipe.drivers.tune_executors import ExecutorError
    from tilepipe.schedule_sim.calibration import CalibrationError

    try:
        return run_tune_command(args)
    except (CalibrationError, ExecutorError) as err:  # a file or a cluster that cannot serve
        print(f"tilepipe tune: error: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # an output that cannot be written
        print(f"tilepipe tune: error: cannot write '{err.filename}': {err.strerror or err}", file=sys.stderr)
        return 1
    except ValueError as err:  # a malformed option value
        parser.error(str(err))


def _write(output: str | None, text: str) -> None:
    if output and output != "-":  # '-' is stdout, as in mlir-opt
        try:
            Path(output).write_text(text)
        except OSError as err:
            raise InputError(
                Diagnostic("error", f"cannot write '{output}': {err.strerror or err}")
            ) from None
    else:
        sys.stdout.write(text)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "tune":
        return run_tune(parser, args)
    path = Path(args.kernel)
    # Bad input (InputError, CompileError, xDSL diagnostics) is reported by run_driver.
    text = read_source(path)
    start = time.perf_counter()
    module = parse_kernel(text, str(path))
    parse_seconds = time.perf_counter() - start
    if args.target is None:
        named = named_targets(module)
        if len(named) > 1:
            parser.error(
                f"the kernels name different targets ({', '.join(named)}): "
                "choose one with --target"
            )
        args.target = named[0] if named else DEFAULT_TARGET
    args.target = TARGET_ALIASES.get(args.target, args.target)
    ascend = not isinstance(TARGETS[args.target], CudaTarget)
    emits = ASCEND_EMITS if ascend else CUDA_EMITS
    if args.emit is not None and args.emit not in emits:
        parser.error(f"--emit {args.emit} is not for target {args.target} (choose from {', '.join(emits)})")
    result = compile_module(
        module,
        args.target,
        level=args.emit,
        num_stages=args.num_stages,
        run_ptxas=not args.no_ptxas,
        debug_info=args.debug_info,
        index_mode=args.index_mode,
        isolate_upstream=args.isolate_upstream,
        host_launch=args.host_launch,
        tensor_maps=args.tensor_maps,
        warpgroup_mma=args.warpgroup_mma,
        warp_specialize=args.warp_specialize,
        parse_seconds=parse_seconds,
    )
    _write(args.output, result.output)
    if ascend and args.syntax_check and result.level == "ascendc":
        from tilepipe.lowering.ascend.ascendc import report_syntax_check

        if not report_syntax_check(result.output):
            return 1
    if args.schedule_svg and not ascend:
        from tilepipe.schedule_sim.flow import draw_schedule

        draw_schedule(text, str(path), args.target, [args.num_stages], args.schedule_svg)
    if not args.quiet:
        print(result.summary(str(path)), file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``tilepipe``; returns the exit status (see :func:`run_driver`)."""
    parser = _parser()
    return run_driver(
        "tilepipe", argv, parser.parse_args, lambda args: run(parser, args)
    )


if __name__ == "__main__":
    sys.exit(main())
