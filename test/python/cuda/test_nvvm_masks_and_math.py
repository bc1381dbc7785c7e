"""``tile.log``, ``tile.sqrt``, ``tile.rsqrt``, ``tile.iota``, ``tile.cmp`` and
``tile.select`` lowered to NVVM (``lowering/nvvm/elementwise.py``): each runs per
thread, race free and bit-exact against the tile level on values that reach every
edge (NaN, infinities, zeros of both signs, negative numbers, equal operands, integer
wrap-around), in shared memory (vector runs) and in register fragments; ptxas accepts
them on sm_80 and sm_90.
"""

from __future__ import annotations

import numpy as np
import pytest

from pipeline_helpers import apply_passes
from tilepipe.drivers.compile import compile_kernel
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

NUMPY = {"f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64,
         "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
SPACES = ("shared", "fragment")

# X and Y (of type A) and M (of type B) are staged on chip as S, T and N; the op
# under test writes D (of type C), which is stored to O.
KERNEL = """
func.func @k(%X: memref<16x32xA>, %Y: memref<16x32xA>, %M: memref<16x32xB>, %O: memref<16x32xC>)
    attributes {tile.threads = 64 : i64, tile.target = "TARGET"} {
  %S = memref.alloc() : memref<16x32xA, "SPACE">
  %T = memref.alloc() : memref<16x32xA, "SPACE">
  %N = memref.alloc() : memref<16x32xB, "SPACE">
  %D = memref.alloc() : memref<16x32xC, "SPACE">
  tile.copy<16x32> %X -> %S : memref<16x32xA> -> memref<16x32xA, "SPACE">
  tile.copy<16x32> %Y -> %T : memref<16x32xA> -> memref<16x32xA, "SPACE">
  tile.copy<16x32> %M -> %N : memref<16x32xB> -> memref<16x32xB, "SPACE">
  pipeline.barrier
  OP
  pipeline.barrier
  tile.copy<16x32> %D -> %O : memref<16x32xC, "SPACE"> -> memref<16x32xC>
  func.return
}
"""


def kernel(op: str, a: str, b: str, c: str, space: str, target: str = "sm_80") -> str:
    text = KERNEL.replace("OP", op).replace("SPACE", space).replace("TARGET", target)
    return text.replace("xA", f"x{a}").replace("xB", f"x{b}").replace("xC", f"x{c}")


def values(dtype: str, seed: int) -> np.ndarray:
    """Values reaching every edge of ``dtype``; a third of them repeat the seed-0
    values (so two operands are often equal)."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("i"):
        info = np.iinfo(NUMPY[dtype])
        out = rng.integers(-3, 3, (16, 32)).astype(NUMPY[dtype])
        out.flat[::5] = rng.integers(info.min, info.max, out.flat[::5].shape, endpoint=True)
        out.flat[:4] = [info.min, info.max, 0, -1]
        return out
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 4.0, 0.25, 1e-30, 6e4, -2.0]
    out = np.concatenate([
        special, rng.uniform(-3, 3, 200), rng.uniform(0, 100, 200),
        np.round(rng.uniform(-2, 2, 512 - 400 - len(special))),
    ]).reshape(16, 32)
    if dtype == "bf16":
        return bf16_bits_to_f32(round_f32_to_bf16_bits(out.astype(np.float32)))
    return out.astype(NUMPY[dtype])


def check_against_tile_level(text: str, a: str, b: str, c: str) -> np.ndarray:
    y = values(a, 1)
    y.flat[::3] = values(a, 0).flat[::3]
    inputs = {"X": values(a, 0), "Y": y, "M": values(b, 2), "O": np.zeros((16, 32), NUMPY[c])}

    def fresh() -> dict[str, np.ndarray]:
        return {name: array.copy() for name, array in inputs.items()}

    assert find_races(text, inputs=fresh()) == []
    expected = run_tile_kernel(text, inputs=fresh())["O"]
    lowered = apply_passes(text, "lower-to-nvvm")
    run = run_nvvm_kernel(lowered, list(fresh().values()), check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[3], expected)
    return expected


def region(name: str, dtype: str, space: str) -> str:
    return f'memref<16x32x{dtype}, "{space}">'


@pytest.mark.parametrize("space", SPACES)
@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32"])
@pytest.mark.parametrize("kind", ["log", "sqrt", "rsqrt"])
def test_unary_math_matches_the_tile_level(kind, dtype, space):
    t = region("S", dtype, space)
    op = f"tile.{kind}<16x32> %S -> %D : {t} -> {t}"
    out = check_against_tile_level(kernel(op, dtype, "i8", dtype, space), dtype, "i8", dtype)
    assert np.isnan(out).any()  # negative inputs


@pytest.mark.parametrize("space", SPACES)
@pytest.mark.parametrize("dtype", ["f16", "f32", "i8", "i32", "i64"])
@pytest.mark.parametrize("predicate", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_cmp_matches_the_tile_level(predicate, dtype, space):
    t = region("S", dtype, space)
    op = f"tile.cmp<16x32> {predicate} %S, %T -> %D : {t}, {t} -> {t}"
    out = check_against_tile_level(kernel(op, dtype, "i8", dtype, space), dtype, "i8", dtype)
    assert set(np.unique(out)) == {0, 1}


@pytest.mark.parametrize("space", SPACES)
@pytest.mark.parametrize("mask, data", [("i8", "f16"), ("f32", "i32"), ("f16", "bf16"), ("i64", "f32")])
def test_select_matches_the_tile_level(mask, data, space):
    m, t = region("N", mask, space), region("S", data, space)
    op = f"tile.select<16x32> %N, %S, %T -> %D : {m}, {t}, {t} -> {t}"
    check_against_tile_level(kernel(op, data, mask, data, space), data, mask, data)


@pytest.mark.parametrize("space", SPACES)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("dtype, start", [("f32", "-3.5"), ("f16", "1.000980e+00"), ("bf16", "2.500000e+02"), ("i8", "120"), ("i64", "-7")])
def test_iota_matches_the_tile_level(dtype, start, dim, space):
    t = region("D", dtype, space)
    element = dtype
    op = (
        f"%start = arith.constant {start} : {element}\n"
        f"  tile.iota<16x32> %start -> %D dim {dim} : {element} -> {t}"
    )
    out = check_against_tile_level(kernel(op, "i8", "i8", dtype, space), "i8", "i8", dtype)
    other = out.swapaxes(0, 1) if dim == 1 else out
    assert (other == other[:, :1]).all()  # constant along the other dimension


def test_iota_wraps_and_rounds_at_the_tile_level():
    t = region("D", "i8", "shared")
    op = f"%start = arith.constant 120 : i8\n  tile.iota<16x32> %start -> %D dim 1 : i8 -> {t}"
    out = check_against_tile_level(kernel(op, "i8", "i8", "i8", "shared"), "i8", "i8", "i8")
    assert list(out[0, 6:10]) == [126, 127, -128, -127]
    t = region("D", "f16", "shared")
    op = f"%start = arith.constant 2.048000e+03 : f16\n  tile.iota<16x32> %start -> %D dim 1 : f16 -> {t}"
    out = check_against_tile_level(kernel(op, "i8", "i8", "f16", "shared"), "i8", "i8", "f16")
    assert list(out[0, :4]) == [2048, 2048, 2050, 2052]  # 2049 and 2051 round to even


MASKED = """
  %zero = arith.constant 0.000000e+00 : f32
  tile.iota<16x32> %zero -> %D dim 0 : f32 -> TYPE
  tile.iota<16x32> %zero -> %S dim 1 : f32 -> TYPE
  tile.cmp<16x32> ge %D, %S -> %D : TYPE, TYPE -> TYPE
  tile.log<16x32> %T -> %S : TYPE -> TYPE
  tile.rsqrt<16x32> %S -> %S : TYPE -> TYPE
  tile.sqrt<16x32> %S -> %S : TYPE -> TYPE
  tile.select<16x32> %D, %S, %T -> %D : TYPE, TYPE, TYPE -> TYPE
"""


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_masks_and_math_compile(target, dtype, ptxas_available):
    for space in SPACES:
        body = MASKED.replace("TYPE", region("D", "f32", space)).replace("f32", dtype)
        text = kernel(body, dtype, "i8", dtype, space, target)
        check_against_tile_level(text, dtype, "i8", dtype)
        result = compile_kernel(text, "kernel.mlir", target)
        assert result.ptxas
