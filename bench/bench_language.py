"""What the Python frontend costs next to the compile it feeds (not a test).

    python bench/bench_language.py [--repeat 5] [--target sm_80] [--check]

Issue #31 asks that building the IR of the flash-attention example
(examples/python/flash_attention.py, one head, 1024 x 64, the sizes of
examples/flash_attention.mlir) cost under 10% of its compile time.  "Build" is
the frontend alone: the factory call, the ``ast`` walk into a verified tile-level
module (``PrimFunc.build``, a fresh PrimFunc each run so nothing is cached).
"Compile" is ``tilepipe.compile_for`` of that module through the whole flow to PTX
(ptxas not run).  Each figure is the median of ``--repeat`` runs; ``--check``
exits 1 when build / compile is 10% or more.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

from tilepipe.drivers.api import compile_for

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "python" / "flash_attention.py"


def load_example():
    spec = importlib.util.spec_from_file_location("flash_attention_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(repeat: int, target: str) -> tuple[float, float]:
    example = load_example()
    builds, compiles = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        module = example.flash_attention(1, 1024, 64).build(target)
        builds.append(time.perf_counter() - start)
        start = time.perf_counter()
        compile_for(module, target)
        compiles.append(time.perf_counter() - start)
    return statistics.median(builds), statistics.median(compiles)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--target", default="sm_80")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    build, compile_ = measure(args.repeat, args.target)
    ratio = build / compile_
    print(f"flash attention ({args.target}, median of {args.repeat}): "
          f"build IR {build * 1e3:.1f} ms, compile {compile_ * 1e3:.1f} ms, "
          f"build / compile {ratio:.1%}")
    return 1 if args.check and ratio >= 0.10 else 0


if __name__ == "__main__":
    sys.exit(main())
