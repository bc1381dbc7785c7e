"""The flash-attention example (examples/flash_attention.mlir) end to end: the
tile-level run computes attention (checked against a float64 numpy reference), and
the lowered, synchronized kernel runs thread by thread in the NVVM interpreter,
race free, computing what the tile level computes.  (ptxas acceptance is the lit test
test/cuda/nvvm/compile-flash-attention.mlir; sync minimality is in test_sync_mutation.)"""

import numpy as np
import pytest

from conftest import EXAMPLES
from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import find_races, run_tile_kernel
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

HEAD_DIM = 64
BLOCK = 64


def reduced(
    kv_blocks: int, num_stages: int = 2, target: str = "sm_80", example: str = "flash_attention.mlir"
) -> str:
    """The example for one query block over ``kv_blocks`` K/V blocks (a sequence of
    ``64 * kv_blocks``), one block in the grid."""
    sequence = BLOCK * kv_blocks
    text = (EXAMPLES / example).read_text()
    return (
        text.replace("memref<1024x64x", f"memref<{sequence}x64x")
        .replace("%c16 = arith.constant 16", f"%c16 = arith.constant {kv_blocks}")
        .replace("array<i64: 16, 1>", "array<i64: 1, 1>")
        .replace("num_stages = 2", f"num_stages = {num_stages}")
        .replace('"sm_80"', f'"{target}"')
    )


def inputs(kv_blocks: int, seed: int = 3) -> dict[str, np.ndarray]:
    """Q, K, V of the reduced kernel (only Q's first 64 rows are block 0's)."""
    rng = np.random.default_rng(seed)
    shape = (BLOCK * kv_blocks, HEAD_DIM)
    # Q spread by 2 so that the running maximum changes between K/V blocks.
    q = (2 * rng.uniform(-1, 1, shape)).astype(np.float16)
    k, v = (rng.uniform(-1, 1, shape).astype(np.float16) for _ in range(2))
    return {"Q": q, "K": k, "V": v, "O": np.zeros(shape, np.float32)}


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    scores = q.astype(np.float64) @ k.astype(np.float64).T
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    return (weights @ v.astype(np.float64)) / weights.sum(axis=1, keepdims=True)


def tile_level(kv_blocks: int, data: dict[str, np.ndarray]) -> np.ndarray:
    """Block 0's 64 output rows from the tile-level interpreter."""
    return run_tile_kernel(reduced(kv_blocks), inputs=data)["O"][:BLOCK]


@pytest.mark.parametrize("kv_blocks", [1, 3])
def test_tile_level_run_is_attention(kv_blocks):
    """P is rounded to f16 before P·V; everything else accumulates in f32: the error
    against exact attention is that of one f16 rounding of the weights."""
    data = inputs(kv_blocks)
    expected = attention(data["Q"][:BLOCK], data["K"], data["V"])
    np.testing.assert_allclose(tile_level(kv_blocks, data), expected, atol=2e-3, rtol=0)


def test_tile_level_kernel_needs_synchronization():
    """Without thread-sync the detector reports the races the pass must order."""
    races = find_races(reduced(2), blocks=[(0, 0)])
    names = {race.buffer for race in races}
    assert {"%m_new", "%alpha", "%l_tile", "%P_s"} <= names


def lowered(text: str):
    module = parse_kernel(text, "flash_attention.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        get_all_passes()[name]()().apply(ctx, module)
    return module


@pytest.mark.parametrize(
    "target, num_stages",
    [("sm_80", 2), ("sm_80", 3), ("sm_90", 2), ("sm_90a", 2), ("sm_90a", 3), ("sm_90a", 4)],
)
def test_lowered_kernel_matches_the_tile_level_per_thread(target, num_stages):
    """The NVVM interpreter runs every thread of the lowered kernel (cp.async groups or
    bulk copies, barriers, ldmatrix/mma.sync fragments, quad-shuffle reductions,
    broadcasts in the accumulator layouts) with race detection.  The result is not
    bit-identical to the tile level: mma.sync sums S = Q·K^T and the shuffles sum the
    rows in other orders than numpy, so an element of P can round to a neighbouring
    f16 (one ulp, 2^-11 relative, of a weight)."""
    kv_blocks = 3
    data = inputs(kv_blocks, seed=5)
    module = lowered(reduced(kv_blocks, num_stages, target))
    wgmmas = sum(op.name == "nvvm.wgmma.mma_async" for op in module.walk())
    assert (wgmmas > 0) == (target == "sm_90a")  # both gemms, Q K^T and P V
    arguments = [data[name].copy() for name in ("Q", "K", "V", "O")]
    run = run_nvvm_kernel(module, arguments, check_races=True)
    assert run.races == []
    expected = tile_level(kv_blocks, data)
    np.testing.assert_allclose(run.outputs[3][:BLOCK], expected, atol=2e-4, rtol=0)



def test_every_barrier_is_needed_per_thread():
    """Deleting any one barrier of the lowered kernel is a race between real threads
    (e.g. lane 0 of a quad writing a row maximum that other threads then read)."""
    module = lowered(reduced(2))
    data = inputs(2)
    count = sum(op.name == "nvvm.barrier0" for op in module.walk())
    unnoticed = []
    for index in range(count):
        mutant = module.clone()
        victim = [op for op in mutant.walk() if op.name == "nvvm.barrier0"][index]
        victim.detach()
        victim.erase()
        arguments = [data[name].copy() for name in ("Q", "K", "V", "O")]
        if not run_nvvm_kernel(mutant, arguments, check_races=True, stop_at_first_race=True).races:
            unnoticed.append(index)
    assert count and unnoticed == []
