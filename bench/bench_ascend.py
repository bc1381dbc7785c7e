"""Ascend path benchmark: pass times per example, and cycles per iteration in the pipe
simulator against depth and flag ids per hard event (not a test).

1. Pass time: each pass of the Ascend pipeline on each example (best of 3).
2. Cycles per iteration in the pipe simulator (the target's per-pipe latencies), at
   num_stages 1-4, with the 910B's 8 ids per hard event, with 4 (the Atlas training
   series) and with 1 (every ring spills to the lock pool).  The steady state is
   measured as (cycles(T) - cycles(S)) / (T - S) with T the example's trip count and
   S = max(T / 2, depth + 1) -- a shorter loop would lose the rings that could never
   fire in it -- so prologue and drain do not count.  The chapter's claim to look for: deeper multi-buffering lowers the
   cycles per iteration until the flag slots run out; then the spilled syncs (blocking
   locks) give part of it back -- "the bottleneck moves from memory to flag slots".
3. Sync ops per example at num_stages 1-4 (static counts in the compiled kernel, the
   example's own trip counts): set/wait flags, cross-core set/wait flags and barriers.
   Rings that can never fire (a loop with no more iterations than the ring's
   versions) are elided, which shows at num_stages 4 in the mixed example.

    python bench/bench_ascend.py
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import PassPipeline

from tilepipe.core.flows import FLOWS, run_flow
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import load_module
from tilepipe.semantics.ascend.sim import numpy_dtype, run_ascend_kernel

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KERNELS = ("ascend_vadd.mlir", "ascend_matmul.mlir")
# Pass times also for the mixed cube + vector kernel (two loops: no single trip count).
TIMED_KERNELS = (*KERNELS, "ascend_matmul_vector.mlir")
BUDGETS = (("8 ids", ""), ("4 ids", "ids_per_event=4"), ("1 id", "ids_per_event=1"))


def variant(name: str, num_stages: int, trips: int) -> str:
    text = (EXAMPLES / name).read_text()
    text = re.sub(r"num_stages = \d+", f"num_stages = {num_stages}", text)
    bound = re.search(r"pipeline\.for %\w+ = %\w+ to %(\w+)", text).group(1)
    return re.sub(
        rf"%{bound} = arith.constant \d+ : index",
        f"%{bound} = arith.constant {trips} : index",
        text,
    )


def inputs_for(module: ModuleOp) -> dict[str, np.ndarray]:
    kernel = next(op for op in module.walk() if isinstance(op, FuncOp))
    rng = np.random.default_rng(0)
    return {
        a.name_hint: rng.uniform(-1, 1, a.type.get_shape()).astype(numpy_dtype(a.type))
        for a in kernel.body.block.args
    }


def cycles(text: str, budget: str) -> tuple[int, int]:
    """(cycles, lock-pool requests) of one simulated run."""
    module = run_flow(load_module(text), "ascend", options={"ascend-flag-budget": budget})
    report = run_ascend_kernel(module, inputs_for(load_module(text)))
    assert report.ok, report.problems()
    locks = sum(1 for op in module.walk() if op.name == "ascend.get_buf")
    return report.cycles, locks


def pass_times() -> None:
    passes = get_all_passes()
    print("pass time (ms, best of 3)")
    print(f"  {'pass':34s}" + "".join(f"{k:>27s}" for k in TIMED_KERNELS))
    rows: dict[str, list[float]] = {name: [] for name in FLOWS["ascend"].passes}
    for kernel in TIMED_KERNELS:
        text = (EXAMPLES / kernel).read_text()
        best = {name: float("inf") for name in FLOWS["ascend"].passes}
        for _ in range(3):
            module = load_module(text)
            for name in FLOWS["ascend"].passes:
                pipeline = PassPipeline.parse_spec(passes, name)
                start = time.perf_counter()
                pipeline.apply(Context(), module)
                best[name] = min(best[name], time.perf_counter() - start)
        for name in FLOWS["ascend"].passes:
            rows[name].append(best[name] * 1000)
    for name, values in rows.items():
        print(f"  {name:34s}" + "".join(f"{v:27.2f}" for v in values))


def example_trips(name: str) -> int:
    text = (EXAMPLES / name).read_text()
    bound = re.search(r"pipeline\.for %\w+ = %\w+ to %(\w+)", text).group(1)
    return int(re.search(rf"%{bound} = arith.constant (\d+) : index", text).group(1))


def cycles_per_iteration() -> None:
    print("\ncycles per iteration in the pipe simulator (steady state)")
    for kernel in KERNELS:
        trips = example_trips(kernel)
        print(f"  {kernel} (short runs of {trips // 2} trips, or depth + 1, vs {trips})")
        print("    depth" + "".join(f"{label:>18s}" for label, _ in BUDGETS))
        for depth in range(1, 5):
            # The short run must keep every ring: a loop of no more trips than a
            # ring's versions has none (it could never fire).
            short_trips = max(trips // 2, depth + 1)
            cells = []
            for _, budget in BUDGETS:
                short, _ = cycles(variant(kernel, depth, short_trips), budget)
                long, locks = cycles(variant(kernel, depth, trips), budget)
                spill = f" ({locks} lk)" if locks else ""
                cells.append(f"{(long - short) / (trips - short_trips):.1f}{spill}")
            print(f"    {depth:5d}" + "".join(f"{c:>18s}" for c in cells))
    print("  (N lk: lock-pool requests in the kernel, i.e. spilled syncs)")


SYNC_OPS = (
    ("set", "ascend.set_flag"),
    ("wait", "ascend.wait_flag"),
    ("xset", "ascend.cross_core_set_flag"),
    ("xwait", "ascend.cross_core_wait_flag"),
    ("barrier", "ascend.pipe_barrier"),
)


def sync_counts() -> None:
    print("\nsync ops in the compiled kernel (static counts; xset/xwait: cross-core)")
    print(f"  {'example':28s}{'depth':>6s}" + "".join(f"{label:>9s}" for label, _ in SYNC_OPS))
    for kernel in TIMED_KERNELS:
        text = (EXAMPLES / kernel).read_text()
        for depth in range(1, 5):
            staged = re.sub(r"num_stages = \d+", f"num_stages = {depth}", text)
            module = run_flow(load_module(staged), "ascend")
            names = [op.name for op in module.walk()]
            counts = "".join(f"{names.count(name):9d}" for _, name in SYNC_OPS)
            print(f"  {kernel:28s}{depth:6d}{counts}")


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    pass_times()
    cycles_per_iteration()
    sync_counts()


if __name__ == "__main__":
    main()
