"""The CUDA hardware's own rules (docs/semantics.md, "What the hardware guarantees"),
held at the NVVM level: the detector models them, so a lowering that breaks one is
reported, and the lowering obeys them.

Partial barriers: ``bar.sync id, N`` counts arriving warps.  The kernel below gets
``bar.sync 1, 64`` and ``bar.sync 2, 96`` in a 128-thread block (test/cuda/sync/partial.mlir).
Executed by all four warps -- the lowering before barriers were issued by one warp -- the first barrier is
completed by whichever two warps arrive first (threads 0-63 are not ordered: a race)
and the second leaves the fourth warp waiting forever (a hang)."""

from pathlib import Path

import numpy as np
import pytest

from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel

PARTIAL = """
func.func @partial(%A: memref<32x16xf16>, %B: memref<32x8xf16>, %C: memref<96x8xf16>, %D: memref<48x8xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %s = memref.alloc() : memref<32x16xf16, "shared">
  %t = memref.alloc() : memref<96x8xf16, "shared">
  tile.copy<32x16> %A -> %s : memref<32x16xf16> -> memref<32x16xf16, "shared">
  tile.copy<32x8> %s -> %B : memref<32x16xf16, "shared"> -> memref<32x8xf16>
  tile.copy<96x8> %C -> %t : memref<96x8xf16> -> memref<96x8xf16, "shared">
  tile.copy<48x8> %t[%c48, %c0] -> %D : memref<96x8xf16, "shared"> -> memref<48x8xf16>
  func.return
}
"""

RNG = np.random.default_rng(14)
A = RNG.uniform(-1, 1, (32, 16)).astype(np.float16)
C = RNG.uniform(-1, 1, (96, 8)).astype(np.float16)


def lowered(text: str, passes=("thread-sync", "lower-to-nvvm")):
    module = parse_kernel(text, "kernel.mlir")
    ctx = make_context()
    for name in passes:
        get_all_passes()[name]()().apply(ctx, module)
    return module


def barriers(module, count: int):
    return [
        op for op in module.walk()
        if op.name == "nvvm.barrier" and len(op.operands) == 2
        and op.operands[1].owner.properties["value"].value.data == count
    ]


def unguarded(module, count: int):
    """The module with the ``bar.sync id, count`` moved out of its ``tid < count``
    guard, so that every warp of the block executes it (the old lowering)."""
    (barrier,) = barriers(module, count)
    guard = barrier.parent_op()
    assert guard.name == "scf.if"
    barrier.detach()
    guard.parent_block().insert_op_after(barrier, guard)
    return module


def run(module):
    args = [A, np.zeros((32, 8), np.float16), C, np.zeros((48, 8), np.float16)]
    return run_nvvm_kernel(module, args, check_races=True)


def test_partial_barriers_are_executed_by_their_warps_only_and_race_free():
    result = run(lowered(PARTIAL))
    assert result.races == []
    np.testing.assert_array_equal(result.outputs[1], A[:, :8])
    np.testing.assert_array_equal(result.outputs[3], C[48:])


def test_a_partial_barrier_executed_by_more_warps_orders_nothing():
    result = run(unguarded(lowered(PARTIAL), 64))
    assert result.races, "bar.sync 1, 64 run by 4 warps was taken to order threads 0-63"


def test_a_partial_barrier_whose_warps_do_not_divide_hangs():
    with pytest.raises(NvvmExecutionError, match="4 warps arrive .* every 3 warps"):
        run(unguarded(lowered(PARTIAL), 96))


# An arena laid out by hand with data over the mbarrier, the overlay the fuzzer found
# (merge-shared-memory itself keeps mbarrier storage live for the whole kernel).
OVERLAY = """
func.func @overlay(%O: memref<64xf32>) attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %arena = memref.alloc() : memref<256xi8, "shared">
  %bars = memref.view %arena[%c0][] : memref<256xi8, "shared"> to memref<2xi64, "shared">
  %data = memref.view %arena[%c0][] : memref<256xi8, "shared"> to memref<64xf32, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.barrier
  pipeline.mbarrier_arrive %bars[%c0] : memref<2xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
  pipeline.barrier
  tile.fill<64> %zero -> %data : f32 -> memref<64xf32, "shared">
  pipeline.barrier
  tile.copy<64> %data -> %O : memref<64xf32, "shared"> -> memref<64xf32>
  func.return
}
"""


def test_a_write_over_a_live_mbarrier_is_reported():
    """Barriers order the fill after every wait, but the bytes still hold an
    initialised mbarrier: reusing them needs mbarrier.inval first."""
    module = lowered(OVERLAY, passes=("lower-to-nvvm",))
    result = run_nvvm_kernel(module, [np.ones(64, np.float32)], check_races=True)
    assert any("overwrites a live mbarrier" in race for race in result.races)


def test_an_mbarrier_init_is_a_shared_write_others_must_not_race_with():
    """Without the barrier that publishes the init, the other threads' waits read
    the object unordered with thread 0's init."""
    unpublished = OVERLAY.replace(
        "  pipeline.barrier\n  pipeline.mbarrier_arrive", "  pipeline.mbarrier_arrive", 1
    )
    module = lowered(unpublished, passes=("lower-to-nvvm",))
    result = run_nvvm_kernel(module, [np.ones(64, np.float32)], check_races=True)
    assert any("in 'nvvm.mbarrier" in race for race in result.races)


# The async proxy (PTX ISA, "Memory Consistency Model: Proxies"): bulk copies and
# their mbarrier complete_tx reach shared memory through the async proxy, ordered
# after generic accesses (mbarrier.init included) only by fence.proxy.async.
REGRESSIONS = Path(__file__).parents[2] / "regressions"
F16 = np.float16


@pytest.mark.parametrize(
    "name, passes, arguments",
    [
        ("proxy_fence_mbarrier_init.mlir", ("lower-to-nvvm",), 2),
        ("proxy_fence_generic_write.mlir", ("thread-sync", "lower-to-nvvm"), 3),
    ],
)
def test_proxy_fences_are_needed_at_the_nvvm_level(name, passes, arguments):
    """Race free as lowered; without the last fence.proxy.async (the one after the
    init; the one thread-sync put before the bulk copy, which also fences thread 0's
    init, so the init's own fence is redundant there) the NVVM detector reports the
    async-proxy access of generically written bytes."""
    text = (REGRESSIONS / name).read_text()
    a = RNG.uniform(-1, 1, (64, 64)).astype(F16)
    arrays = [a] + [np.zeros((64, 64), F16) for _ in range(arguments - 1)]
    module = lowered(text, passes=passes)
    result = run_nvvm_kernel(module, [x.copy() for x in arrays], check_races=True)
    assert result.races == []
    np.testing.assert_array_equal(result.outputs[-1], a)
    last_fence = [op for op in module.walk() if op.name == "nvvm.fence.proxy"][-1]
    last_fence.detach()
    last_fence.erase()
    result = run_nvvm_kernel(module, [x.copy() for x in arrays], check_races=True)
    assert any("through the async proxy" in race for race in result.races)
