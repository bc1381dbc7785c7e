"""Wall time of ``tilepipe compile`` for the chapter's GEMM at num_stages 1-4, per stage
(tilepipe passes, the upstream MLIR hand-off to PTX, ptxas) and in total.

    python bench/bench_nvvm.py [--target sm_80|sm_90] [--repeat N]

The figure to beat is TileLang 0.1.15's own lowering of the same GEMM on the same
machine: about 0.4-1.4 s for sm_80 at num_stages 0-4, without nvcc.  Each row is the
median over ``--repeat`` runs; parsing is included in the total (as the CLI does it).
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


def measure(target: str, num_stages: int, repeat: int) -> tuple[dict[str, float], float]:
    per_stage: dict[str, list[float]] = defaultdict(list)
    totals = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = compile_kernel(GEMM, "gemm.mlir", target, num_stages=num_stages)
        totals.append(time.perf_counter() - start)
        for stage in result.stages:
            if not stage.skipped:
                per_stage[stage.name].append(stage.seconds)
    medians = {name: statistics.median(times) for name, times in per_stage.items()}
    return medians, statistics.median(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="sm_80", choices=("sm_80", "sm_90"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = [(n, *measure(args.target, n, args.repeat)) for n in (1, 2, 3, 4)]
    stages = list(rows[0][1])
    print(f"tilepipe compile examples/gemm.mlir --target {args.target} (median of {args.repeat}, ms)")
    print("num_stages " + " ".join(f"{s[:14]:>14s}" for s in stages) + f" {'total':>9s}")
    for num_stages, medians, total in rows:
        cells = " ".join(f"{medians.get(s, 0.0) * 1000:14.1f}" for s in stages)
        print(f"{num_stages:10d} {cells} {total * 1000:9.1f}")


if __name__ == "__main__":
    main()
