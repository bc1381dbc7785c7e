"""Compile time of every pass of the CUDA flow (through lower-to-nvvm), and how it
grows with kernel size and pipeline depth (not a test).

    python bench/bench_compile.py [--sizes 2,4,8,16,32] [--depths 2,3,4,6,8] [--check]

Kernels are generated: ``streams`` independent copy -> gemm pairs in one pipelined loop
(2 x streams statements, 2 x streams shared buffers).  For each size the table gives
the seconds of each pass (median of ``--repeat`` runs on freshly parsed modules), the
sync insertion's Z3 query count and cache hit rate, and at the end the growth exponent
of each pass fitted on log(time) against log(statements).  ``--check`` exits 1 when a
pass grows faster than quadratically in the body size.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tilepipe.core.registry import make_context, pass_pipeline
from xdsl.parser import Parser
from tilepipe.core.flows import FLOWS

FLOW = FLOWS["cuda"].pass_names()
TILE = 32


def generate(streams: int, num_stages: int, trips: int = 16, dynamic: bool = False) -> str:
    """``dynamic``: the trip count is a kernel argument (sync insertion needs Z3)."""
    args = ", ".join(f"%A{i}: memref<{trips * TILE}x{TILE}xf16>" for i in range(streams))
    if dynamic:
        args += ", %n: index"
    lines = [
        f"func.func @streams({args}) attributes {{tile.threads = 128 : i64, "
        'tile.target = "sm_90"} {',
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %ct = arith.constant {TILE} : index",
    ]
    if not dynamic:
        lines.append(f"  %n = arith.constant {trips} : index")
    for i in range(streams):
        lines.append(f'  %S{i} = memref.alloc() : memref<{TILE}x{TILE}xf16, "shared">')
        lines.append(f'  %F{i} = memref.alloc() : memref<{TILE}x{TILE}xf32, "fragment">')
    lines.append(f"  pipeline.for %k = %c0 to %n step %c1 num_stages = {num_stages} {{")
    lines.append("    %row = arith.muli %k, %ct : index")
    shared = f'memref<{TILE}x{TILE}xf16, "shared">'
    for i in range(streams):
        lines.append(
            f"    tile.copy<{TILE}x{TILE}> %A{i}[%row, %c0] -> %S{i} : "
            f"memref<{trips * TILE}x{TILE}xf16> -> {shared}"
        )
    for i in range(streams):
        lines.append(
            f"    tile.gemm<{TILE}x{TILE}x{TILE}> %S{i}, %S{i} -> %F{i} : {shared}, "
            f'{shared} -> memref<{TILE}x{TILE}xf32, "fragment">'
        )
    lines += ["  }", "  func.return", "}"]
    return "\n".join(lines)


def time_flow(text: str, repeat: int) -> tuple[dict[str, float], dict]:
    ctx = make_context()
    samples: dict[str, list[float]] = {name: [] for name in FLOW}
    totals: dict = {}
    for _ in range(repeat):
        module = Parser(ctx, text).parse_module()
        with tempfile.NamedTemporaryFile("r", suffix=".json") as report:
            for name in FLOW:
                spec = name
                if name == "thread-sync":
                    spec = f'thread-sync{{report=json report-file="{report.name}"}}'
                pipeline = pass_pipeline(spec)
                start = time.perf_counter()
                pipeline.apply(ctx, module)
                samples[name].append(time.perf_counter() - start)
            totals = json.loads(Path(report.name).read_text())["totals"]
    return {name: statistics.median(v) for name, v in samples.items()}, totals


def _query_columns(totals: dict) -> str:
    queries, hits = totals["queries"], totals["cache_hits"]
    rate = hits / (queries + hits) if queries + hits else 0.0
    return f"  {queries:>8}  {totals['z3_queries']:>5}  {rate:>8.0%}"


def growth_exponent(xs: list[float], ys: list[float]) -> float:
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1e-9)) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    num = sum((a - mx) * (b - my) for a, b in zip(lx, ly))
    den = sum((a - mx) ** 2 for a in lx)
    return num / den if den else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", default="2,4,8,16,32",
        help="copy -> gemm pairs per loop body, comma separated (default 2,4,8,16,32)",
    )
    parser.add_argument(
        "--depths", default="2,3,4,6,8", help="num_stages values, comma separated (default 2,3,4,6,8)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per point, median (default 1)")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a pass grows faster than quadratically"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    depths = [int(d) for d in args.depths.split(",")]

    header = "statements " + " ".join(f"{name:>25}" for name in FLOW) + "   queries  by Z3  hit rate"
    print("growth with body size (num_stages = 3), seconds per pass")
    print(header)
    per_pass: dict[str, list[float]] = {name: [] for name in FLOW}
    for streams in sizes:
        times, totals = time_flow(generate(streams, 3), args.repeat)
        for name in FLOW:
            per_pass[name].append(times[name])
        print(f"{2 * streams:>10} " + " ".join(f"{times[n]:>25.4f}" for n in FLOW)
              + _query_columns(totals))
    statements = [2 * s for s in sizes]
    exponents = {name: growth_exponent(statements, per_pass[name]) for name in FLOW}
    print("growth exponent vs statements: "
          + ", ".join(f"{n} {e:.2f}" for n, e in exponents.items()))

    print("\ngrowth with depth (4 statements), seconds per pass")
    print(header.replace("statements", "     depth"))
    for depth in depths:
        times, totals = time_flow(generate(2, depth), args.repeat)
        print(f"{depth:>10} " + " ".join(f"{times[n]:>25.4f}" for n in FLOW)
              + _query_columns(totals))

    print("\ngrowth with body size, dynamic trip count (num_stages = 3), seconds per pass")
    print(header)
    dynamic: list[float] = []
    for streams in sizes[:4]:
        times, totals = time_flow(generate(streams, 3, dynamic=True), args.repeat)
        dynamic.append(times["thread-sync"])
        print(f"{2 * streams:>10} " + " ".join(f"{times[n]:>25.4f}" for n in FLOW)
              + _query_columns(totals))
    exponent = growth_exponent(statements[:4], dynamic)
    print(f"thread-sync growth exponent vs statements (dynamic): {exponent:.2f}")
    exponents["thread-sync (dynamic)"] = exponent

    if args.check and any(e > 2.0 for e in exponents.values()):
        print("FAIL: a pass grows faster than quadratically", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
