"""Two differences between the tile level and the lowered kernel found by this
session's fuzzing campaign (fuzz seed 100701, sm_90; both reproduce on sm_80).

* ``tile.reduce`` of a shared source: the lowering gives each thread the destination
  elements it owns and reads their whole columns, but the analyses counted the source
  as read in cooperative chunks.  After a copy into the source (chunk ``c`` by thread
  ``c``), thread-sync saw the same threads and placed no barrier: the lowered kernel
  raced.  The source now counts as read by all threads.
* ``transpose_b`` gemms: the tile level summed a transposed numpy view, which einsum
  adds in another order than the same values laid out row-major (the NVVM model's mma
  operands): a few ulps apart, reported as a miscompile.
* f32 gemms (seed 100660): lower-to-nvvm's scalar path adds one rounded product per K
  (``mul.f32``, ``add.f32``), the tile level summed 16 K at a time: f32 operands now
  accumulate one K at a time at the tile level too (``numerics.gemm_k_step``).
* a copy nobody reads (seed 201500, sm_80): its last group was still in flight at the
  return; the lowered kernel's threads exited with a ``cp.async`` writing shared
  memory.  thread-sync drains before the return; the tile level counts the exit as a
  write of the bytes still in flight, so the drain is needed at both levels.
"""

from pathlib import Path

import numpy as np
import pytest
from pipeline_helpers import apply_passes

from tilepipe.drivers.compile import make_context
from tilepipe.dialects.pipeline_sync import BarrierOp, WaitGroupOp
from tilepipe.dialects.tile import ReduceOp
from tilepipe.core.registry import get_all_passes
from xdsl.dialects.builtin import MemRefType

from tilepipe.semantics import find_races, run_tile_kernel, select_kernel
from tilepipe.semantics.tile.grid_runner import random_array
from tilepipe.semantics.nvvm.execution import NvvmExecutionError
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.core.flows import FLOWS

UNREAD_COPY = Path(__file__).parents[2] / "regressions" / "unread_copy_drained_at_exit.mlir"

CUDA = FLOWS["cuda"].spec("scheduled")

REDUCE_SHARED = """
func.func @reduce_shared(%in: memref<64x16xbf16>, %out: memref<16xbf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "TARGET"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<32x16xbf16, "shared">
  %r = memref.alloc() : memref<16xbf16, "shared">
  tile.copy<32x16> %in[%c0, %c0] -> %s : memref<64x16xbf16> -> memref<32x16xbf16, "shared">
  tile.reduce<32x16> max %s -> %r axis 0 : memref<32x16xbf16, "shared"> -> memref<16xbf16, "shared">
  tile.copy<16> %r -> %out[%c0] : memref<16xbf16, "shared"> -> memref<16xbf16>
  func.return
}
"""

GEMM_TRANSPOSE_B = """
func.func @gemm_tb(%a: memref<32x32xT>, %b: memref<16x32xT>, %out: memref<32x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %acc = memref.alloc() : memref<32x16xf32, "fragment">
  %sa = memref.alloc() : memref<32x32xT, "shared">
  %sb = memref.alloc() : memref<16x32xT, "shared">
  tile.fill<32x16> %zero -> %acc : f32 -> memref<32x16xf32, "fragment">
  tile.copy<32x32> %a[%c0, %c0] -> %sa : memref<32x32xT> -> memref<32x32xT, "shared">
  tile.copy<16x32> %b[%c0, %c0] -> %sb : memref<16x32xT> -> memref<16x32xT, "shared">
  tile.gemm<32x16x32> %sa, %sb -> %acc transpose_b : memref<32x32xT, "shared">, memref<16x32xT, "shared"> -> memref<32x16xf32, "fragment">
  tile.copy<32x16> %acc -> %out[%c0, %c0] : memref<32x16xf32, "fragment"> -> memref<32x16xf32>
  func.return
}
"""


def _inputs(module) -> dict[str, np.ndarray]:
    """Random contents for every memref argument, in each element format's encoding."""
    rng = np.random.default_rng(5)
    func = select_kernel(module, None)
    return {
        arg.name_hint: random_array(arg.type, rng)
        for arg in func.body.block.args if isinstance(arg.type, MemRefType)
    }


def _lowered(module):
    lowered = module.clone()
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), lowered)
    return lowered


def _assert_lowered_run_matches_tile_level(text, module, output: str) -> None:
    """The lowered ``module`` runs race free per thread and writes ``output`` exactly
    as the tile-level run of its source ``text`` does, on the same random inputs."""
    inputs = _inputs(module)
    expected = run_tile_kernel(text, inputs=inputs)[output]
    run = run_nvvm_kernel(_lowered(module), list(inputs.values()), check_races=True)
    assert run.races == []
    actual = run.outputs[list(inputs).index(output)]
    np.testing.assert_array_equal(np.asarray(actual, np.float64), np.asarray(expected, np.float64))


def _barrier_before_reduce(module) -> BarrierOp:
    (reduce,) = [op for op in module.walk() if isinstance(op, ReduceOp)]
    assert isinstance(reduce.prev_op, BarrierOp), "no barrier between the copy and the reduce"
    return reduce.prev_op


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_reduce_of_shared_source_is_ordered_after_its_copy(target):
    text = REDUCE_SHARED.replace("TARGET", target)
    module = apply_passes(text, CUDA)
    _barrier_before_reduce(module)
    _assert_lowered_run_matches_tile_level(text, module, "out")


def test_reduce_barrier_is_needed_at_both_levels():
    module = apply_passes(REDUCE_SHARED.replace("TARGET", "sm_80"), CUDA)
    barrier = _barrier_before_reduce(module)
    barrier.detach()
    barrier.erase()
    assert find_races(module), "the tile-level detector misses the unordered reduce"
    run = run_nvvm_kernel(_lowered(module), list(_inputs(module).values()), check_races=True)
    assert run.races, "the lowered kernel without the barrier should race"


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32"])
def test_transpose_b_gemm_rounds_as_the_lowered_one(dtype):
    text = GEMM_TRANSPOSE_B.replace("xT", "x" + dtype)
    module = apply_passes(text, CUDA)
    inputs = _inputs(module)
    expected = run_tile_kernel(text, inputs=inputs)["out"]
    run = run_nvvm_kernel(_lowered(module), list(inputs.values()), check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[2], expected)  # bit-exact, not close


def _drain(module) -> WaitGroupOp:
    (ret,) = [op for op in module.walk() if op.name == "func.return"]
    assert isinstance(ret.prev_op, WaitGroupOp) and ret.prev_op.pending_groups == 0
    return ret.prev_op


def test_unread_copy_lands_before_the_threads_exit():
    text = UNREAD_COPY.read_text()
    module = apply_passes(text, CUDA)
    _drain(module)
    _assert_lowered_run_matches_tile_level(text, module, "out12")


def test_drain_before_exit_is_needed_at_both_levels():
    module = apply_passes(UNREAD_COPY.read_text(), CUDA)
    drain = _drain(module)
    drain.detach()
    drain.erase()
    races = find_races(module)
    assert any(r.second.op.name == "func.return" and r.buffer == "%s3" for r in races), races
    with pytest.raises(NvvmExecutionError, match="never waited for"):
        run_nvvm_kernel(_lowered(module), list(_inputs(module).values()), check_races=True)
