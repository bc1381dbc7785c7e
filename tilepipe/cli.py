"""``tilepipe``: the end-to-end driver.

    tilepipe compile KERNEL.mlir --target sm_80|sm_90 --emit nvvm|llvm|ptx -o OUT [--num-stages N]

compiles a tile-level kernel through every registered pass of the CUDA flow, upstream
MLIR and ``ptxas``, writes the requested stage to OUT (stdout without ``-o``) and prints
a one-screen summary to stderr: what each stage did (stages, versions, arena bytes,
syncs), the time it took, and registers / shared memory from ``ptxas -v``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tilepipe.compile import CompileError, CompileResult, compile_kernel
from tilepipe.targets import TARGETS, CudaTarget

CUDA_TARGETS = sorted(name for name, t in TARGETS.items() if isinstance(t, CudaTarget))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tilepipe", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    compile_cmd = commands.add_parser("compile", help="compile a tile kernel to NVVM/LLVM/PTX")
    compile_cmd.add_argument("kernel", help="tile-level kernel (.mlir)")
    compile_cmd.add_argument("--target", choices=CUDA_TARGETS, default="sm_80")
    compile_cmd.add_argument("--emit", choices=("nvvm", "llvm", "ptx"), default="ptx")
    compile_cmd.add_argument("-o", "--output", help="output file (default: stdout)")
    compile_cmd.add_argument(
        "--num-stages", type=int, help="override num_stages of every pipelined loop"
    )
    compile_cmd.add_argument(
        "--no-ptxas", action="store_true", help="do not assemble the PTX with ptxas"
    )
    compile_cmd.add_argument(
        "-q", "--quiet", action="store_true", help="no summary on stderr"
    )
    return parser


def format_summary(result: CompileResult, kernel_path: str) -> str:
    lines = [f"tilepipe compile {kernel_path} --target {result.target.name}"]
    for stage in result.stages:
        time = "" if stage.skipped else f"{stage.seconds * 1000:8.1f} ms"
        lines.append(f"  {stage.name:26s} {time:>11s}  {stage.summary}")
    for report in result.ptxas:
        dynamic = result.dynamic_shared_bytes.get(report.kernel)
        shared = f"{report.shared_bytes} B static shared"
        if dynamic is not None:
            shared += f" + {dynamic} B dynamic shared (launch with it)"
        spills = ""
        if report.spill_store_bytes or report.spill_load_bytes:
            spills = f", spills {report.spill_store_bytes}/{report.spill_load_bytes} B"
        lines.append(
            f"  kernel @{report.kernel}: {report.registers} registers, {shared}, "
            f"{report.barriers} barriers{spills} ({report.arch})"
        )
    for warning in result.warnings:
        lines.append(f"  {warning}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    path = Path(args.kernel)
    try:
        text = path.read_text()
    except OSError as err:
        print(f"tilepipe: error: cannot read {path}: {err.strerror}", file=sys.stderr)
        return 1
    try:
        result = compile_kernel(
            text,
            str(path),
            args.target,
            emit=args.emit,
            num_stages=args.num_stages,
            run_ptxas=not args.no_ptxas,
        )
    except CompileError as err:
        for diagnostic in err.diagnostics:
            print(diagnostic, file=sys.stderr)
        return 1
    if args.output:
        Path(args.output).write_text(result.output)
    else:
        sys.stdout.write(result.output)
    if not args.quiet:
        print(format_summary(result, str(path)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
