"""``tile.cast`` between integer and float types and between integer widths
(docs/nvvm.md; the semantics in docs/semantics.md): float to integer rounds toward zero
and saturates (NaN to 0), integer to float rounds to nearest even, integer to integer
sign-extends or keeps the low bits.  Each pair runs per thread, race free and
bit-exact against the tile level on values that reach every edge (NaN, infinities,
beyond the integer range, halves, negative zero, the integer extremes), in shared
memory (vector runs) and in register fragments; ptxas accepts them on sm_80 and sm_90.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tilepipe.drivers.compile import compile_kernel, make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

FLOATS = ("f16", "bf16", "f32")
INTEGERS = ("i8", "i16", "i32", "i64")
NUMPY = {"f16": np.float16, "bf16": np.float32, "f32": np.float32,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
PAIRS = [
    (a, b)
    for a, b in itertools.product(FLOATS + INTEGERS, repeat=2)
    if a != b and not (a in FLOATS and b in FLOATS)
]

KERNEL = """
func.func @cast(%X: memref<16x32xSRC>, %O: memref<16x32xDST>)
    attributes {tile.threads = 64 : i64, tile.target = "TARGET"} {
  %S = memref.alloc() : memref<16x32xSRC, "SPACE">
  %D = memref.alloc() : memref<16x32xDST, "SPACE">
  tile.copy<16x32> %X -> %S : memref<16x32xSRC> -> memref<16x32xSRC, "SPACE">
  pipeline.barrier
  tile.cast<16x32> %S -> %D : memref<16x32xSRC, "SPACE"> -> memref<16x32xDST, "SPACE">
  pipeline.barrier
  tile.copy<16x32> %D -> %O : memref<16x32xDST, "SPACE"> -> memref<16x32xDST>
  func.return
}
"""


def kernel(src: str, dst: str, space: str, target: str = "sm_80") -> str:
    return (
        KERNEL.replace("SRC", src).replace("DST", dst).replace("SPACE", space)
        .replace("TARGET", target)
    )


def values(dtype: str, seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype in INTEGERS:
        info = np.iinfo(NUMPY[dtype])
        out = rng.integers(info.min, info.max, (16, 32), dtype=NUMPY[dtype], endpoint=True)
        out.flat[:4] = [info.min, info.max, 0, -1]
        return out
    scale = {"f16": 6e4, "bf16": 1e20, "f32": 1e20}[dtype]
    out = np.concatenate([
        rng.uniform(-scale, scale, 160), rng.uniform(-300, 300, 160), rng.uniform(-3, 3, 160),
        [np.nan, np.inf, -np.inf, 0.5, -0.5, 1.5, 2.5, -2.5, -0.0, 127.5, -128.5, 32767.9,
         -32768.9, 2147483520.0, -2147483648.0, 3e9, -3e9, 9.3e18, -9.3e18, 40000.0],
        rng.uniform(-1, 1, 12),
    ]).reshape(16, 32)
    if dtype == "bf16":
        return bf16_bits_to_f32(round_f32_to_bf16_bits(out.astype(np.float32)))
    return out.astype(NUMPY[dtype])


def lowered(text: str):
    module = parse_kernel(text, "kernel.mlir")
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), module)
    return module


@pytest.mark.parametrize("space", ["shared", "fragment"])
@pytest.mark.parametrize("src, dst", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_cast_matches_the_tile_level(src, dst, space):
    text = kernel(src, dst, space)
    inputs = {"X": values(src), "O": np.zeros((16, 32), NUMPY[dst])}
    assert find_races(text, inputs={k: v.copy() for k, v in inputs.items()}) == []
    expected = run_tile_kernel(text, inputs={k: v.copy() for k, v in inputs.items()})["O"]
    run = run_nvvm_kernel(lowered(text), [v.copy() for v in inputs.values()], check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], expected)


def test_float_to_integer_saturates_at_the_tile_level():
    text = kernel("f32", "i32", "shared")
    x = np.zeros((16, 32), np.float32)
    x.flat[:7] = [np.nan, np.inf, -np.inf, 3e9, -3e9, -2.7, 2.7]
    out = run_tile_kernel(text, inputs={"X": x, "O": np.zeros((16, 32), np.int32)})["O"]
    assert list(out.flat[:7]) == [0, 2**31 - 1, -(2**31), 2**31 - 1, -(2**31), -2, 2]


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("src, dst", [("f32", "i32"), ("i64", "bf16"), ("f16", "i8"), ("bf16", "i64"), ("i16", "i64"), ("i32", "i8")])
def test_casts_compile(src, dst, target, ptxas_available):
    for space in ("shared", "fragment"):
        result = compile_kernel(kernel(src, dst, space, target), "kernel.mlir", target)
        assert result.ptxas
