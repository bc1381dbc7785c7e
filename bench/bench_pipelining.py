"""Time of pipeline-planning + inject-software-pipeline per example, and its growth
with the loop body's size (8 -> 64 statements) and the pipeline depth (2 -> 8) (not a
test).

    python bench/bench_pipelining.py [--repeat N] [--check]

Prints one table per sweep and the growth exponent fitted on log(time) vs log(size);
``--check`` exits 1 when the body-size exponent exceeds 2 (quadratic).  Parsing is not
timed: each run gets a freshly parsed module.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from tilepipe.core.registry import get_all_passes, make_context

ROOT = Path(__file__).resolve().parents[1]
PASSES = "pipeline-planning,inject-software-pipeline"
TILE = 16




def time_passes(text: str, repeat: int) -> float:
    """Median seconds of planning + pipelining one parsed module."""
    ctx = make_context()
    pipeline = PassPipeline.parse_spec(get_all_passes(), PASSES)
    samples = []
    for _ in range(repeat):
        module: ModuleOp = Parser(ctx, text).parse_module()
        start = time.perf_counter()
        pipeline.apply(ctx, module)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def synthetic_body(statements: int, num_stages: int) -> str:
    """``statements / 2`` copies of a global tile into their own shared buffer, then
    ``statements / 2`` copies from those buffers to disjoint tiles of one output: the
    output accesses are pairwise checked for overlap, as in a real body."""
    pairs = statements // 2
    row = pairs * TILE
    allocs = "\n".join(
        f'  %S{i} = memref.alloc() : memref<{TILE}xf32, "shared">' for i in range(pairs)
    )
    offsets = "\n".join(
        f"    %o{i} = arith.addi %base, %c{i * TILE} : index" for i in range(pairs)
    )
    constants = "\n".join(
        f"  %c{i * TILE} = arith.constant {i * TILE} : index" for i in range(1, pairs)
    )
    loads = "\n".join(
        f'    tile.copy<{TILE}> %X[%o{i}] -> %S{i} : memref<{row * 64}xf32> -> memref<{TILE}xf32, "shared">'
        for i in range(pairs)
    )
    stores = "\n".join(
        f'    tile.copy<{TILE}> %S{i} -> %Y[%o{i}] : memref<{TILE}xf32, "shared"> -> memref<{row * 64}xf32>'
        for i in range(pairs)
    )
    return f"""
func.func @body(%X: memref<{row * 64}xf32>, %Y: memref<{row * 64}xf32>, %n: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %crow = arith.constant {row} : index
{constants}
{allocs}
  pipeline.for %k = %c0 to %n step %c1 num_stages = {num_stages} {{
    %base = arith.muli %k, %crow : index
{offsets}
{loads}
{stores}
  }}
  func.return
}}
"""


def fitted_exponent(sizes: list[int], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) on log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum(
        (x - mx) ** 2 for x in xs
    )


def table(title: str, header: str, rows: list[tuple[object, float]]) -> None:
    print(f"\n{title}")
    print(f"  {header:>20}  {'ms':>9}")
    for key, seconds in rows:
        print(f"  {key!s:>20}  {seconds * 1e3:9.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per point, median (default 3)")
    parser.add_argument("--check", action="store_true", help="fail above quadratic growth")
    args = parser.parse_args(argv)

    examples = sorted(p for p in (ROOT / "examples").glob("*.mlir") if "pipeline.for" in p.read_text())
    table(
        "planning + pipelining per example",
        "example",
        [(p.name, time_passes(p.read_text(), args.repeat)) for p in examples],
    )

    sizes = [8, 16, 32, 64]
    size_times = [time_passes(synthetic_body(n, 3), args.repeat) for n in sizes]
    table("growth with body size (num_stages = 3)", "statements", list(zip(sizes, size_times)))
    size_exponent = fitted_exponent(sizes, size_times)
    print(f"  fitted exponent: {size_exponent:.2f} (time ~ statements^k)")

    depths = [2, 3, 4, 6, 8]
    depth_times = [time_passes(synthetic_body(16, d), args.repeat) for d in depths]
    table("growth with depth (16 statements)", "num_stages", list(zip(depths, depth_times)))
    print(f"  fitted exponent: {fitted_exponent(depths, depth_times):.2f} (time ~ depth^k)")

    if args.check and size_exponent > 2.0:
        print(f"FAIL: growth in body size is worse than quadratic ({size_exponent:.2f})")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
