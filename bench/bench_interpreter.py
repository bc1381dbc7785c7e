"""Interpreter speed on the example GEMM shrunk to 256x256x256, race detector off and on
(not a test).

    python bench/bench_interpreter.py [--size 256] [--repeat 3]

Prints the seconds one run over the whole grid takes with the race detector off
and on (the best of ``--repeat`` runs).
"""

from __future__ import annotations

import argparse
import pathlib
import time

from tilepipe.semantics import execute

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "gemm.mlir"
BLOCK_M = BLOCK_N = 128
BLOCK_K = 64


def shrink_gemm(text: str, size: int) -> str:
    """The example GEMM (1024^3, 8x8 blocks, 16 k-steps) at ``size``^3."""
    blocks, k_steps = size // BLOCK_M, size // BLOCK_K
    return (
        text.replace("1024x1024", f"{size}x{size}")
        .replace("array<i64: 8, 8>", f"array<i64: {blocks}, {blocks}>")
        .replace("%c16 = arith.constant 16 : index", f"%c16 = arith.constant {k_steps} : index")
    )


def with_barriers(text: str) -> str:
    """The barriers thread-sync inserts around the gemm (copies -> gemm -> copies)."""
    lines = []
    for line in text.splitlines():
        if line.strip().startswith("tile.gemm"):
            indent = line[: len(line) - len(line.lstrip())]
            lines += [f"{indent}pipeline.barrier", line, f"{indent}pipeline.barrier"]
        else:
            lines.append(line)
    return "\n".join(lines)


def best_time(kernel: str, repeat: int, check_races: bool) -> tuple[float, int]:
    times, races = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        run = execute(kernel, check_races=check_races)
        times.append(time.perf_counter() - start)
        races = len(run.races)
    return min(times), races


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=256, help="M = N = K of the GEMM (default 256)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure, best of (default 3)")
    args = parser.parse_args()
    kernel = shrink_gemm(EXAMPLE.read_text(), args.size)
    print(f"GEMM {args.size}x{args.size}x{args.size} ({EXAMPLE.name}, shrunk)")
    off, _ = best_time(kernel, args.repeat, check_races=False)
    print(f"  interpreter, race detector off: {off:.3f} s")
    on, races = best_time(kernel, args.repeat, check_races=True)
    print(f"  interpreter, race detector on:  {on:.3f} s ({races} races: the example "
          "has no syncs yet)")
    synced, races = best_time(with_barriers(kernel), args.repeat, check_races=True)
    print(f"  with barriers, race detector on: {synced:.3f} s ({races} races)")


if __name__ == "__main__":
    main()
