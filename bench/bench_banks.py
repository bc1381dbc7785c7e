"""Shared-memory bank conflicts of the lowered kernels, in wavefronts (not a test).

    python bench/bench_banks.py [--num-stages 2]

Runs one block of the example GEMM (K shrunk to 256) and of the flash-attention
example (3 K/V blocks) through the whole CUDA flow, for sm_80 and sm_90, with
``lower-to-nvvm``'s shared-tile swizzle on and off, in the NVVM interpreter with the
bank model on (``tilepipe/semantics/nvvm/banks.py``).  For every op that touches
shared memory it prints the wavefronts the accesses take against the ideal (one per
phase); a ratio above 1 is bank conflicts.  It also prints what the model costs the
interpreter.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RNG = np.random.default_rng(0)


def gemm(target: str, num_stages: int) -> tuple[str, list[np.ndarray]]:
    """Block (0, 0) of examples/gemm.mlir with K = 256 (4 k tiles)."""
    text = (EXAMPLES / "gemm.mlir").read_text()
    text = (
        text.replace("memref<1024x1024xf16>, %B", "memref<128x256xf16>, %B")
        .replace("%B: memref<1024x1024xf16>", "%B: memref<256x128xf16>")
        .replace("%C: memref<1024x1024xf32>", "%C: memref<128x128xf32>")
        .replace("memref<1024x1024xf16> -> memref<128x64", "memref<128x256xf16> -> memref<128x64")
        .replace("memref<1024x1024xf16> -> memref<64x128", "memref<256x128xf16> -> memref<64x128")
        .replace("-> memref<1024x1024xf32>", "-> memref<128x128xf32>")
        .replace("array<i64: 8, 8>", "array<i64: 1, 1>")
        .replace("%c16 = arith.constant 16 : index", "%c16 = arith.constant 4 : index")
        .replace('"sm_80"', f'"{target}"')
    )
    text = _with_num_stages(text, num_stages)
    args = [
        RNG.uniform(-1, 1, (128, 256)).astype(np.float16),
        RNG.uniform(-1, 1, (256, 128)).astype(np.float16),
        np.zeros((128, 128), np.float32),
    ]
    return text, args


def flash_attention(target: str, num_stages: int) -> tuple[str, list[np.ndarray]]:
    """One query block of examples/flash_attention.mlir over 3 K/V blocks."""
    text = (EXAMPLES / "flash_attention.mlir").read_text()
    text = (
        text.replace("memref<1024x64x", "memref<192x64x")
        .replace("%c16 = arith.constant 16", "%c16 = arith.constant 3")
        .replace("array<i64: 16, 1>", "array<i64: 1, 1>")
        .replace('"sm_80"', f'"{target}"')
    )
    text = _with_num_stages(text, num_stages)
    shape = (192, 64)
    args = [RNG.uniform(-1, 1, shape).astype(np.float16) for _ in range(3)]
    return text, [*args, np.zeros(shape, np.float32)]


def _with_num_stages(text: str, num_stages: int) -> str:
    import re

    return re.sub(r"num_stages = \d+", f"num_stages = {num_stages}", text)


def lower(text: str, swizzle: bool):
    module = parse_kernel(text, "kernel.mlir")
    ctx = make_context()
    passes = get_all_passes()
    for name in FLOWS["cuda"].passes:
        options = {"swizzle_shared": swizzle} if name == "lower-to-nvvm" else {}
        passes[name]()(**options).apply(ctx, module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--num-stages", type=int, default=2, help="num_stages of the kernels (default 2)"
    )
    args = parser.parse_args()
    print("shared-memory wavefronts per op: actual / ideal (ratio) -- one block")
    for kernel in (gemm, flash_attention):
        for target in ("sm_80", "sm_90", "sm_90a"):
            text, arguments = kernel(target, args.num_stages)
            for swizzle in (False, True):
                module = lower(text, swizzle)
                start = time.perf_counter()
                plain = run_nvvm_kernel(module, arguments)
                middle = time.perf_counter()
                run = run_nvvm_kernel(module, arguments, count_bank_conflicts=True)
                end = time.perf_counter()
                assert np.array_equal(plain.outputs[-1], run.outputs[-1])
                label = f"{kernel.__name__} {target} swizzle={'on' if swizzle else 'off'}"
                cost = (end - middle) / (middle - start)
                print(f"{label:36s} (interpreter {middle - start:.2f} s, with the model x{cost:.2f})")
                for name, (wavefronts, ideal) in run.shared_wavefronts.items():
                    print(f"    {name:28s} {wavefronts:8d} / {ideal:8d}  ({wavefronts / ideal:.2f})")


if __name__ == "__main__":
    main()
