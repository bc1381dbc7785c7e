"""Dynamic shapes and boundary tiles through the tile-level pipelines.

examples/gemm_dynamic.mlir at M, N, K in {1, 15, 127, 129, 1000} with dynamic and
static shapes, num_stages 1-4, the sm_80 and sm_90 tile-level pipelines: the source
matches numpy, the pipelined kernel is race free and bit-identical to the source.
The quick sample covers every (shapes, target, num_stages) combination on a rotating
subset of the sizes and runs only the first and the last (ragged) block of the big
grids; ``TILEPIPE_DYNAMIC_SHAPES=full`` runs the whole matrix on whole grids.
flash attention (examples/flash_attention_dynamic.mlir) at sequence lengths
{1, 63, 65, 1000}.  A hypothesis property draws shapes and tile sizes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sweeps import long_mode
from dynamic_kernels import (
    FLASH_DYNAMIC,
    GEMM_DYNAMIC,
    compiled,
    flash_inputs,
    flash_reference,
    gemm_inputs,
    gemm_reference,
    run_both,
    with_static_shapes,
)

FULL = long_mode("TILEPIPE_DYNAMIC_SHAPES")
SIZES = (1, 15, 127, 129, 1000)
CONFIGS = list(itertools.product(("dynamic", "static"), ("sm_80", "sm_90"), (1, 2, 3, 4)))


def _gemm_cases():
    if FULL:
        return [
            (m, n, k, *config)
            for (m, n, k) in itertools.product(SIZES, repeat=3)
            for config in CONFIGS
        ]
    # Every configuration once, each with another (M, N, K): every size appears in
    # every position, 1000 included.
    shapes = [
        (1, 1, 1), (15, 127, 129), (129, 15, 127), (127, 129, 15), (1000, 15, 129),
        (15, 1000, 127), (129, 127, 1000), (127, 1, 15), (1, 129, 1000), (1000, 1, 1),
        (15, 15, 15), (129, 129, 129), (1, 1000, 1), (127, 127, 1), (1000, 129, 127),
        (15, 1, 1000),
    ]
    return [(*shape, *config) for shape, config in zip(shapes, CONFIGS)]


def _blocks(m: int, n: int):
    """The whole grid, or (quick sample, big grids) its first and its last block."""
    grid = (-(-n // 128), -(-m // 128))
    if FULL or grid[0] * grid[1] <= 4:
        return None
    return [(0, 0), (grid[0] - 1, grid[1] - 1)]


def _covered(m: int, n: int, blocks) -> tuple[slice, slice] | list:
    if blocks is None:
        return [(slice(0, m), slice(0, n))]
    return [
        (slice(by * 128, min(m, by * 128 + 128)), slice(bx * 128, min(n, bx * 128 + 128)))
        for bx, by in blocks
    ]


@pytest.mark.parametrize("m,n,k,shapes,target,num_stages", _gemm_cases())
def test_gemm_matches_numpy_and_its_pipeline(m, n, k, shapes, target, num_stages):
    sizes = {"A": (m, k), "B": (k, n), "C": (m, n)}
    source = GEMM_DYNAMIC if shapes == "dynamic" else with_static_shapes(GEMM_DYNAMIC, sizes)
    inputs = gemm_inputs(m, n, k)
    blocks = _blocks(m, n)
    outputs = run_both(source, compiled(source, target, num_stages), inputs, blocks)
    reference = gemm_reference(inputs)
    for rows, cols in _covered(m, n, blocks):
        np.testing.assert_allclose(
            outputs["C"][rows, cols], reference[rows, cols], rtol=1e-3, atol=1e-3 * k**0.5
        )


@pytest.mark.parametrize("length", [1, 63, 65, 1000])
@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_flash_attention_at_ragged_lengths(length, target):
    inputs = flash_inputs(length)
    grid = -(-length // 64)
    blocks = None if FULL or grid <= 2 else [(0,), (grid - 1,)]
    outputs = run_both(FLASH_DYNAMIC, compiled(FLASH_DYNAMIC, target, 2), inputs, blocks)
    reference = flash_reference(inputs)
    rows = [slice(0, length)] if blocks is None else [
        slice(b * 64, min(length, b * 64 + 64)) for (b,) in blocks
    ]
    for r in rows:
        np.testing.assert_allclose(outputs["O"][r], reference[r], rtol=2e-3, atol=2e-3)


# --------------------------------------------------------------------------- property

GEMM_TEMPLATE = """
func.func @gemm(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {tile.threads = 64 : i64, tile.target = "TARGET"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant BM : index
  %bn = arith.constant BN : index
  %bk = arith.constant BK : index
  %zero = arith.constant 0.000000e+00 : f32
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  %N = memref.dim %B, %c1 : memref<?x?xf32>
  %gx = arith.ceildivui %N, %bn : index
  %gy = arith.ceildivui %M, %bm : index
  tile.grid_dims %gx, %gy
  %trips = arith.ceildivui %K, %bk : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %bm : index
  %n0 = arith.muli %bx, %bn : index
  %A_s = memref.alloc() : memref<BMxBKxf32, "shared">
  %B_s = memref.alloc() : memref<BKxBNxf32, "shared">
  %C_f = memref.alloc() : memref<BMxBNxf32, "fragment">
  tile.fill<BMxBN> %zero -> %C_f : f32 -> memref<BMxBNxf32, "fragment">
  pipeline.for %ko = %c0 to %trips step %c1 num_stages = STAGES {
    %k0 = arith.muli %ko, %bk : index
    tile.copy<BMxBK> %A[%m0, %k0] -> %A_s : memref<?x?xf32> -> memref<BMxBKxf32, "shared">
    tile.copy<BKxBN> %B[%k0, %n0] -> %B_s : memref<?x?xf32> -> memref<BKxBNxf32, "shared">
    tile.gemm<BMxBNxBK> %A_s, %B_s -> %C_f : memref<BMxBKxf32, "shared">, memref<BKxBNxf32, "shared"> -> memref<BMxBNxf32, "fragment">
  }
  tile.copy<BMxBN> %C_f -> %C[%m0, %n0] : memref<BMxBNxf32, "fragment"> -> memref<?x?xf32>
  func.return
}
"""


def _gemm_kernel(bm: int, bn: int, bk: int, target: str) -> str:
    text = GEMM_TEMPLATE.replace("TARGET", target).replace("STAGES", "3")
    return text.replace("BM", str(bm)).replace("BN", str(bn)).replace("BK", str(bk))


# TILEPIPE_DYNAMIC_SHAPES=full: more examples, larger arrays and 64-wide tiles too.
TILE_SIZES = [16, 32, 64] if FULL else [16, 32]


@settings(
    max_examples=60 if FULL else 12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    m=st.integers(1, 200 if FULL else 80),
    n=st.integers(1, 200 if FULL else 80),
    k=st.integers(1, 200 if FULL else 80),
    tile=st.tuples(*(st.sampled_from(TILE_SIZES) for _ in range(3))),
    target=st.sampled_from(["sm_80", "sm_90"]), num_stages=st.integers(1, 4),
)
def test_every_drawn_shape_and_tile_is_correct(m, n, k, tile, target, num_stages):
    source = _gemm_kernel(*tile, target)
    rng = np.random.default_rng(m * 10007 + n * 101 + k)
    inputs = {
        # small integers: every product and sum is exact in f32, whatever the order
        "A": rng.integers(-4, 4, (m, k)).astype(np.float32),
        "B": rng.integers(-4, 4, (k, n)).astype(np.float32),
        "C": np.full((m, n), np.nan, dtype=np.float32),
    }
    outputs = run_both(source, compiled(source, target, num_stages), inputs)
    np.testing.assert_array_equal(outputs["C"], inputs["A"] @ inputs["B"])


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_a_static_grid_reaching_past_the_arrays_is_correct(target):
    """5 x 5 blocks of 32 x 32 over a 100 x 90 C: the edge blocks are partial, the last
    row and column of blocks lie wholly past the arrays (they read 0, write nothing)."""
    text = _gemm_kernel(32, 32, 32, target).replace("  tile.grid_dims %gx, %gy\n", "")
    text = text.replace("attributes {", "attributes {tile.grid = array<i64: 5, 5>, ")
    source = with_static_shapes(text, {"A": (100, 70), "B": (70, 90), "C": (100, 90)})
    rng = np.random.default_rng(7)
    inputs = {
        "A": rng.integers(-4, 4, (100, 70)).astype(np.float32),
        "B": rng.integers(-4, 4, (70, 90)).astype(np.float32),
        "C": np.full((100, 90), np.nan, dtype=np.float32),
    }
    outputs = run_both(source, compiled(source, target, 3), inputs)
    np.testing.assert_array_equal(outputs["C"], inputs["A"] @ inputs["B"])
