"""Wall time of tilepipe compile for the example GEMM at num_stages 1-4, per stage
(parsing, each tilepipe pass with its verification, the upstream MLIR hand-off to PTX,
ptxas) and in total, then where the upstream hand-off's time goes.

    python bench/bench_nvvm.py [--target sm_80|sm_90] [--repeat N]

The figure to beat is TileLang 0.1.15's own lowering of the same GEMM on the same
machine: about 0.4-1.4 s for sm_80 at num_stages 0-4, without nvcc.  Each row is the
median over ``--repeat`` runs of ``compile_kernel`` in this process; the "upstream MLIR"
stage is wall time (printing the generic form, handing it to the child process that
imported the MLIR bindings meanwhile, upstream's passes), so the stages add up to the
total.  ptxas is included in the total; TileLang's figure has no nvcc.

Then the PTX instruction count of the kernel at each num_stages, for the static GEMM
and beside it the same GEMM over dynamic arrays (sizes from the memref descriptors):
``memref<?x1024xf16>`` rows (dynamic M: zero-filling cp.async, masked stores) and
``memref<?x?xf16>`` (no provable alignment: predicated element-wise copies).  Boundary
handling must not touch the static GEMM: its blocks are proven interior, so its count
stays what it was before dynamic shapes existed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

from tilepipe.compile import compile_kernel

ROOT = Path(__file__).resolve().parents[1]
GEMM = (ROOT / "examples" / "gemm.mlir").read_text()
GEMMS = {
    "static 1024x1024": GEMM,
    "dynamic M (?x1024)": GEMM.replace("%A: memref<1024x1024xf16>", "%A: memref<?x1024xf16>")
    .replace("%C: memref<1024x1024xf32>", "%C: memref<?x1024xf32>")
    .replace("%A[%m0, %k0] -> %A_s : memref<1024x1024xf16>", "%A[%m0, %k0] -> %A_s : memref<?x1024xf16>")
    .replace("-> memref<1024x1024xf32>", "-> memref<?x1024xf32>"),
    "dynamic (?x?)": GEMM.replace("memref<1024x1024x", "memref<?x?x"),
}
def ptx_instructions(target: str, text: str, num_stages: int) -> int:
    result = compile_kernel(text, "gemm.mlir", target, num_stages=num_stages, run_ptxas=False)
    assert result.ptx is not None
    return sum(_is_instruction(line.strip()) for line in result.ptx.splitlines())


def _is_instruction(line: str) -> bool:
    """An instruction line of a PTX function body (predicated or not): not a
    directive (.reg, .loc, ...), a label, a brace or a comment."""
    return line.endswith(";") and not line.startswith((".", "//", "{", "}"))


def measure(target: str, num_stages: int, repeat: int) -> tuple[dict[str, float], float]:
    per_stage: dict[str, list[float]] = defaultdict(list)
    totals = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = compile_kernel(GEMM, "gemm.mlir", target, num_stages=num_stages)
        totals.append(time.perf_counter() - start)
        per_stage["parse"].append(result.parse_seconds)
        for stage in result.stages:
            if not stage.skipped:
                per_stage[stage.name].append(stage.seconds)
        for name, seconds in result.upstream_pass_seconds.items():
            per_stage[f"upstream: {name}"].append(seconds)
    medians = {name: statistics.median(times) for name, times in per_stage.items()}
    return medians, statistics.median(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target", default="sm_80", choices=("sm_80", "sm_90"), help="CUDA target (default sm_80)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per row, median (default 3)")
    args = parser.parse_args()
    rows = [(n, *measure(args.target, n, args.repeat)) for n in (1, 2, 3, 4)]
    names = list(rows[0][1])
    stages = [n for n in names if not n.startswith("upstream: ")]
    print(f"tilepipe compile examples/gemm.mlir --target {args.target} (median of {args.repeat}, ms)")
    print("num_stages " + " ".join(f"{s[:14]:>14s}" for s in stages) + f" {'total':>9s}")
    for num_stages, medians, total in rows:
        cells = " ".join(f"{medians.get(s, 0.0) * 1000:14.1f}" for s in stages)
        print(f"{num_stages:10d} {cells} {total * 1000:9.1f}")
    print("\nupstream MLIR, by pass (ms; the rest of the stage is printing and the hand-over)")
    for name in names:
        if name.startswith("upstream: "):
            cells = " ".join(f"{medians.get(name, 0.0) * 1000:7.1f}" for _, medians, _ in rows)
            print(f"  {name.removeprefix('upstream: '):28s} {cells}")
    print(f"\nPTX instructions of @gemm ({args.target}), num_stages 1-4")
    for label, text in GEMMS.items():
        counts = " ".join(f"{ptx_instructions(args.target, text, n):7d}" for n in (1, 2, 3, 4))
        print(f"  {label:28s} {counts}")


if __name__ == "__main__":
    main()
