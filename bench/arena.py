"""Arena packing benchmark of merge-shared-memory: packing quality per example and
packing time against the number of buffers (not a test).

1. Quality: arena bytes / peak live bytes for every example at num_stages 1-5 (after
   pipeline-planning and inject-software-pipeline).  1.00 is the lower bound; more
   means alignment gaps or fragmentation -- the table says which arenas have
   stricter-than-default alignments.
2. Speed: packing time for 10 -> 1000 random buffers; time / (n log n) should stay flat.

    python bench/arena.py
"""

from __future__ import annotations

import argparse
import math
import random
import re
import subprocess
import sys
import time
from pathlib import Path

from xdsl.dialects.func import FuncOp
from xdsl.parser import Parser

from tilepipe.passes.memory.arena_packing import Interval, pack
from tilepipe.passes.memory.merge_shared_memory import plan_arenas
from tilepipe.core.registry import make_context

ROOT = Path(__file__).resolve().parents[1]
PIPELINE = "pipeline-planning,inject-software-pipeline"




def scheduled(text: str) -> str | None:
    result = subprocess.run(
        [sys.executable, "-m", "tilepipe", "-", "-p", PIPELINE],
        input=text,
        capture_output=True,
        text=True,
    )
    return result.stdout if result.returncode == 0 else None


def quality() -> None:
    print(f"{'example':24} {'stages':>6} {'space':>6} {'arena':>8} {'peak':>8} "
          f"{'arena/peak':>10}  alignments")
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        for stages in range(1, 6):
            text = re.sub(r"num_stages = \d+", f"num_stages = {stages}", path.read_text())
            pipelined = scheduled(text)
            if pipelined is None:
                print(f"{path.name:24} {stages:>6}  (pipelining failed)")
                continue
            module = Parser(make_context(), pipelined).parse_module()
            for func_op in module.walk():
                if not isinstance(func_op, FuncOp):
                    continue
                for layout in plan_arenas(func_op):
                    ratio = layout.size / max(layout.peak_live_bytes, 1)
                    aligns = sorted({b.alignment for b in layout.buffers})
                    print(
                        f"{path.name:24} {stages:>6} {layout.space.value:>6} "
                        f"{layout.size:>8} {layout.peak_live_bytes:>8} {ratio:>10.2f}  "
                        f"{aligns}{'' if layout.fits else '  OVER BUDGET'}"
                    )


def speed() -> None:
    print(f"\n{'buffers':>8} {'seconds':>10} {'us / (n log2 n)':>16}")
    rng = random.Random(0)
    for n in (10, 30, 100, 300, 1000):
        intervals = []
        for i in range(n):
            start = rng.randrange(4 * n)
            intervals.append(
                Interval(
                    f"b{i}",
                    start,
                    start + rng.randrange(1, n // 4 + 2),
                    rng.randrange(1, 64) * 256,
                    rng.choice((16, 16, 128, 1024)),
                )
            )
        began = time.perf_counter()
        repeats = max(1, 2000 // n)
        for _ in range(repeats):
            pack(intervals)
        seconds = (time.perf_counter() - began) / repeats
        print(f"{n:>8} {seconds:>10.5f} {seconds * 1e6 / (n * math.log2(n)):>16.3f}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    quality()
    speed()
