"""The pipe simulator on small hand-written ascend kernels: each report kind, and the
cycle model."""

from __future__ import annotations

import numpy as np
import pytest

from tilepipe.semantics import load_module
from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.errors import KernelError
from tilepipe.core.targets import ASCEND_910B

HEADER = """
func.func @k(%x: memref<64xf16>, %y: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %u = memref.alloc() : memref<64xf16, "ub">
"""
COPY_IN = 'ascend.data_copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">'
EXP = 'ascend.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">'
COPY_OUT = 'ascend.data_copy<64> %u -> %y : memref<64xf16, "ub"> -> memref<64xf16>'


def run(*body: str, trips: int | None = None):
    lines = "\n".join(body)
    if trips is not None:
        lines = (
            f"%n = arith.constant {trips} : index\n"
            f"scf.for %i = %c0 to %n step %c1 {{\n{lines}\n}}"
        )
    module = load_module(HEADER + lines + "\nfunc.return\n}\n")
    x = np.linspace(-1, 1, 64).astype(np.float16)
    return run_ascend_kernel(module, {"x": x, "y": np.zeros(64, np.float16)}), x


def test_synchronized_kernel_is_clean_and_computes():
    report, x = run(
        COPY_IN, "ascend.set_flag[MTE2, V] 0", "ascend.wait_flag[MTE2, V] 0", EXP,
        "ascend.set_flag[V, MTE3] 0", "ascend.wait_flag[V, MTE3] 0", COPY_OUT,
    )
    assert report.ok, report.problems()
    expected = np.exp(x.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(report.outputs["y"], expected)
    # Each pipe's fixed latency plus the tile's 128 bytes at its rate, and two flags.
    latencies = ASCEND_910B.pipe_latencies
    pipes = sum(latencies[p].cycles(64 * 2) for p in ("MTE2", "V", "MTE3"))
    assert pipes == 30 + 2 + 20 + 1 + 30 + 2
    assert report.cycles == pipes + 2 * ASCEND_910B.flag_latency


def test_missing_flag_is_a_race():
    report, _ = run(COPY_IN, EXP, "ascend.set_flag[V, MTE3] 0", "ascend.wait_flag[V, MTE3] 0", COPY_OUT)
    # The copy in is ordered neither before the exp nor before the copy out.
    assert len(report.races) == 2
    assert "u: #0 ascend.data_copy" in report.races[0] and "#1 ascend.exp" in report.races[0]
    assert "#4 ascend.data_copy" in report.races[1]


def test_same_mte_pipe_needs_a_barrier():
    report, _ = run(COPY_IN, COPY_IN)
    assert report.races  # two MTE2 writes of u: issue order is not completion order
    report, _ = run(COPY_IN, "ascend.pipe_barrier[MTE2]", COPY_IN)
    assert report.ok, report.problems()


def test_same_vector_pipe_keeps_its_order():
    report, _ = run(
        COPY_IN, "ascend.set_flag[MTE2, V] 0", "ascend.wait_flag[MTE2, V] 0", EXP, EXP
    )
    assert report.ok, report.problems()


def test_wait_without_set_deadlocks():
    report, _ = run("ascend.wait_flag[MTE2, V] 3", EXP)
    assert report.deadlock and "ascend.wait_flag MTE2_V id 3" in report.deadlock[0]


def test_second_set_before_wait_and_flag_left_set():
    report, _ = run("ascend.set_flag[MTE2, V] 1", "ascend.set_flag[MTE2, V] 1")
    assert any("second set of MTE2_V id 1" in e for e in report.flag_errors)
    assert report.flags_left == [f for f in report.flags_left if "MTE2_V id 1" in f]
    assert report.flags_left


def test_zero_trip_loop_with_an_unprimed_drain_deadlocks():
    # The set inside the loop never runs; the drain after it waits forever.
    body = [COPY_IN, "ascend.set_flag[MTE2, V] 0"]
    module_text = (
        HEADER
        + "%n = arith.constant 0 : index\nscf.for %i = %c0 to %n step %c1 {\n"
        + "\n".join(body)
        + "\n}\nascend.wait_flag[MTE2, V] 0\nfunc.return\n}\n"
    )
    x = np.zeros(64, np.float16)
    report = run_ascend_kernel(load_module(module_text), {"x": x, "y": x})
    assert report.deadlock


@pytest.mark.parametrize("blocking_consumer", [True, False])
def test_lock_pool_orders_by_issue(blocking_consumer):
    mode = "block" if blocking_consumer else "non_block"
    report, _ = run(
        COPY_IN,
        "ascend.get_buf[MTE2] 5 non_block", "ascend.rls_buf[MTE2] 5 non_block",
        f"ascend.get_buf[V] 5 {mode}", f"ascend.rls_buf[V] 5 {mode}",
        EXP,
    )
    # Only a blocking request waits for the earlier holder's release.
    assert bool(report.races) != blocking_consumer


def test_cross_core_counter_is_capped():
    sets = ["ascend.cross_core_set_flag[2, V] 3"] * 17
    report, _ = run(*sets)
    assert any("may have 17 sets outstanding (the counter holds 16)" in e for e in report.flag_errors)


def test_cross_core_counter_bound_holds_in_every_schedule():
    # 32 sets of one flag, each followed (in issue order, on another core) by a wait:
    # the simulated timing drains the counter in step, but no path orders a wait
    # before a later set, so the setter may run all 32 ahead.
    body = ["ascend.cross_core_set_flag[2, FIX] 1", "ascend.cross_core_wait_flag[2, V] 1"]
    text = (
        HEADER + "%n = arith.constant 32 : index\nscf.for %i = %c0 to %n step %c1 {\n"
        + "\n".join(body) + "\n}\nfunc.return\n}\n"
    )
    x = np.zeros(64, np.float16)
    report = run_ascend_kernel(load_module(text), {"x": x, "y": x})
    assert any("may have 17 sets outstanding" in e for e in report.flag_errors), report.problems()
    # A flag back (vector -> cube) every iteration bounds the sets outstanding to 1.
    back = [
        "ascend.cross_core_wait_flag[2, FIX] 2", "ascend.cross_core_set_flag[2, FIX] 1",
        "ascend.cross_core_wait_flag[2, V] 1", "ascend.cross_core_set_flag[2, V] 2",
    ]
    text = (
        HEADER + "ascend.cross_core_set_flag[2, V] 2\n%n = arith.constant 32 : index\n"
        "scf.for %i = %c0 to %n step %c1 {\n" + "\n".join(back) + "\n}\n"
        "ascend.cross_core_wait_flag[2, FIX] 2\nfunc.return\n}\n"
    )
    report = run_ascend_kernel(load_module(text), {"x": x, "y": x})
    assert report.ok, report.problems()


def test_lock_slot_taken_at_exit_is_reported():
    report, _ = run("ascend.get_buf[MTE2] 7 non_block")
    assert any("lock slot 7 still taken" in f for f in report.flags_left)


def test_spilled_flag_never_waited_is_reported():
    # A spilled set (non-blocking request) whose wait (blocking request) was deleted,
    # as when a spilled ring loses its drain.
    report, _ = run(COPY_IN, "ascend.get_buf[MTE2] 4 non_block", "ascend.rls_buf[MTE2] 4 non_block")
    assert any("lock slot 4 signalled 1 times more than waited" in f for f in report.flags_left)


GRID = """
func.func @k(%x: memref<128xf16>, %y: memref<128xf16>)
    attributes {tile.target = "ascend910b", tile.grid = array<i64: 2>} {
  %c64 = arith.constant 64 : index
  %b = tile.block_id x
  %o = arith.muli %b, %c64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  ascend.data_copy<64> %x[%o] -> %u : memref<128xf16> -> memref<64xf16, "ub">
  ascend.set_flag[MTE2, MTE3] 0
  ascend.wait_flag[MTE2, MTE3] 0
  ascend.data_copy<64> %u -> %y[OUT] : memref<64xf16, "ub"> -> memref<128xf16>
  func.return
}
"""


def test_multi_block_kernel_runs_every_block():
    x = np.linspace(-1, 1, 128).astype(np.float16)
    report = run_ascend_kernel(load_module(GRID.replace("OUT", "%o")), {"x": x, "y": np.zeros_like(x)})
    assert report.ok, report.problems()
    np.testing.assert_array_equal(report.outputs["y"], x)
    # Both blocks writing the same GM tile: blocks are not ordered.
    report = run_ascend_kernel(load_module(GRID.replace("OUT", "%c64")), {"x": x, "y": np.zeros_like(x)})
    assert any("of block (0, 0, 0) and" in r and "of block (1, 0, 0)" in r for r in report.races)


def test_ring_in_a_loop():
    # One buffer reused every iteration, protected by RAW and WAR flags with a prime
    # and a drain; deleting the WAR flags makes iteration i+1's copy race with i's exp.
    ring = [
        "ascend.wait_flag[V, MTE2] 0", COPY_IN,
        "ascend.set_flag[MTE2, V] 0", "ascend.wait_flag[MTE2, V] 0", EXP,
        "ascend.set_flag[V, MTE2] 0",
    ]
    text = (
        HEADER + "ascend.set_flag[V, MTE2] 0\n%n = arith.constant 4 : index\n"
        "scf.for %i = %c0 to %n step %c1 {\n" + "\n".join(ring) + "\n}\n"
        "ascend.wait_flag[V, MTE2] 0\nfunc.return\n}\n"
    )
    x = np.zeros(64, np.float16)
    assert run_ascend_kernel(load_module(text), {"x": x, "y": x}).ok
    broken = text.replace("ascend.wait_flag[V, MTE2] 0\nascend.data_copy", "ascend.data_copy")
    report = run_ascend_kernel(load_module(broken), {"x": x, "y": x})
    assert report.races or report.deadlock or report.flag_errors


MIXED = """
func.func @mixed(%W: memref<16x16xf32>, %out: memref<16x16xf32>) attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<16x16xf32, "l0c">
  %u = memref.alloc() : memref<16x16xf32, "ub">
  ascend.fixpipe<16x16> %c -> %W : memref<16x16xf32, "l0c"> -> memref<16x16xf32>
  SYNC
  ascend.data_copy<16x16> %W -> %u : memref<16x16xf32> -> memref<16x16xf32, "ub">
  ascend.set_flag[MTE2, MTE3] 0 {ascend.core = "vector"}
  ascend.wait_flag[MTE2, MTE3] 0 {ascend.core = "vector"}
  ascend.data_copy<16x16> %u -> %out : memref<16x16xf32, "ub"> -> memref<16x16xf32>
  func.return
}
"""
CROSS_SET = "ascend.cross_core_set_flag[2, FIX] 3"
CROSS_WAIT = 'ascend.cross_core_wait_flag[2, MTE2] 3 {ascend.core = "vector"}'


def run_mixed(*sync: str):
    module = load_module(MIXED.replace("SYNC", "\n".join(sync)))
    zeros = np.zeros((16, 16), np.float32)
    return run_ascend_kernel(module, {"W": zeros, "out": zeros})


def test_mixed_kernel_runs_each_core_on_its_own_pipes():
    report = run_mixed(CROSS_SET, CROSS_WAIT)
    assert report.ok, report.problems()


def test_cross_core_flag_missing_is_a_race_across_cores():
    report = run_mixed()
    assert len(report.races) == 1 and "W: #0 ascend.fixpipe" in report.races[0]


def test_cross_core_set_without_wait_is_left_set():
    report = run_mixed(CROSS_SET)
    assert report.races
    assert report.flags_left == [
        "cross-core flag 3 of the vector core set 1 times more than waited "
        "(#1 ascend.cross_core_set_flag [FIX] 3 at <input>:6:3)"
    ]


def test_cross_core_wait_without_set_deadlocks():
    report = run_mixed(CROSS_WAIT)
    assert report.deadlock
    assert "vector MTE2 is stuck at #1 ascend.cross_core_wait_flag" in report.deadlock[0]


def test_sync_op_of_unknown_core_in_a_mixed_kernel_is_an_error():
    with pytest.raises(KernelError, match="runs on a pipe of both cores in a mixed kernel"):
        run_mixed(CROSS_SET, "ascend.cross_core_wait_flag[2, MTE2] 3")


CUBE = """
func.func @mm(%A: memref<32x32xf16>, %B: memref<32x32xf16>, %C: memref<32x32xf32>)
    attributes {tile.target = "ascend910b"} {
  %true = arith.constant true
  %a1 = memref.alloc() : memref<32x32xf16, "l1">
  %b1 = memref.alloc() : memref<32x32xf16, "l1">
  %a0 = memref.alloc() : memref<32x32xf16, "l0a">
  %b0 = memref.alloc() : memref<32x32xf16, "l0b">
  %c = memref.alloc() : memref<32x32xf32, "l0c">
  COPY<32x32> %A -> %a1 : memref<32x32xf16> -> memref<32x32xf16, "l1">
  ascend.data_copy_nd2nz<32x32> %B -> %b1 : memref<32x32xf16> -> memref<32x32xf16, "l1">
  ascend.set_flag[MTE2, MTE1] 0
  ascend.wait_flag[MTE2, MTE1] 0
  ascend.load_data<32x32> %a1 -> %a0 : memref<32x32xf16, "l1"> -> memref<32x32xf16, "l0a">
  ascend.load_data<32x32> %b1 -> %b0 : memref<32x32xf16, "l1"> -> memref<32x32xf16, "l0b">
  ascend.set_flag[MTE1, M] 0
  ascend.wait_flag[MTE1, M] 0
  ascend.mmad<32x32x32> %a0, %b0 -> %c init %true : memref<32x32xf16, "l0a">, memref<32x32xf16, "l0b"> -> memref<32x32xf32, "l0c">
  ascend.set_flag[M, FIX] 0
  ascend.wait_flag[M, FIX] 0
  ascend.fixpipe<32x32> %c -> %C : memref<32x32xf32, "l0c"> -> memref<32x32xf32>
  func.return
}
"""


@pytest.mark.parametrize("copy, correct", [("ascend.data_copy_nd2nz", True), ("ascend.data_copy", False)])
def test_l1_layout_mismatch_computes_wrong_results(copy, correct):
    # The cube reads L1 in the NZ layout: an ND copy into L1 (the old emission)
    # feeds LoadData a scrambled tile.
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, (32, 32)).astype(np.float16) for _ in range(2))
    report = run_ascend_kernel(load_module(CUBE.replace("COPY", copy)), {"A": a, "B": b, "C": np.zeros((32, 32), np.float32)})
    assert report.ok, report.problems()
    product = a.astype(np.float32) @ b.astype(np.float32)
    assert np.allclose(report.outputs["C"], product, atol=1e-3) == correct
