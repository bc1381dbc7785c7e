"""The happens-before race detector on hand-scheduled kernels: each missing sync is
reported with both accesses, its kind and its iterations; correct kernels are clean;
and the mutation helper shows every sync of a correct kernel is needed."""

from pathlib import Path

import pytest

from tilepipe.semantics import RaceError, find_races, run_tile_kernel
from tilepipe.semantics.testing import assert_every_sync_needed, assert_race_free, sync_mutants

SEMANTICS = Path(__file__).resolve().parents[2] / "semantics"


def kernel(name: str) -> str:
    return (SEMANTICS / name).read_text()


@pytest.mark.parametrize(
    "file, func, args, kinds",
    [
        ("missing-wait.mlir", None, {"n": 3}, {"RAW", "WAW"}),
        ("missing-barrier-after-wait.mlir", None, {"n": 3}, {"RAW"}),
        ("slot-reuse.mlir", None, {"n": 3}, {"WAR"}),
        ("waw.mlir", "racy", None, {"WAW"}),
        ("loop-carried.mlir", "racy", {"n": 3}, {"RAW"}),
        ("bulk-copy-wrong-parity.mlir", None, {"n": 3}, {"RAW", "WAW"}),
    ],
)
def test_missing_sync_is_reported(file, func, args, kinds):
    races = find_races(kernel(file), func, index_args=args)
    assert {race.kind for race in races} == kinds


@pytest.mark.parametrize(
    "file, func",
    [
        ("Inputs/double_buffer.mlir", None),
        ("Inputs/bulk_copy.mlir", None),
        ("loop-carried.mlir", "kernel"),
    ],
)
@pytest.mark.parametrize("trip_count", [0, 1, 2, 3, 17])
def test_correct_versions_are_race_free(file, func, trip_count):
    assert find_races(kernel(file), func, index_args={"n": trip_count}) == []


def test_same_thread_mapping_needs_no_barrier():
    assert find_races(kernel("waw.mlir"), "correct") == []


def test_race_record_names_both_accesses_and_iterations():
    (first, second) = find_races(kernel("loop-carried.mlir"), "racy", index_args={"n": 3})
    assert first.kind == "RAW" and first.buffer == "%A_s" and first.block == (0,)
    assert first.first.op.name == "tile.copy" and first.first.mode == "write"
    assert first.second.op.name == "tile.gemm" and first.second.mode == "read"
    assert first.first.iteration == (("k", 0),)
    assert first.second.iteration == (("k", 1),)
    assert second.first.iteration == (("k", 1),)
    assert first.first.location.line == 28
    assert "race (RAW) on %A_s[0, 0] in block (0):" in str(first)


def test_wait_group_alone_orders_only_the_waiting_threads_copies():
    races = find_races(kernel("missing-barrier-after-wait.mlir"), index_args={"n": 2})
    assert races and all(r.first.agent.startswith("the async copy engine") for r in races)
    assert all(r.second.agent != "thread 0" for r in races)


PARTIAL = """
func.func @k(%C: memref<8x8xf32>) attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %one = arith.constant 1.0 : f16
  %zero = arith.constant 0.0 : f32
  %S = memref.alloc() : memref<8x8xf16, "shared">
  %C_f = memref.alloc() : memref<8x8xf32, "fragment">
  tile.fill<8x8> %one -> %S : f16 -> memref<8x8xf16, "shared">
  tile.fill<8x8> %zero -> %C_f : f32 -> memref<8x8xf32, "fragment">
  BARRIER
  tile.gemm<8x8x8> %S, %S -> %C_f : memref<8x8xf16, "shared">, memref<8x8xf16, "shared"> -> memref<8x8xf32, "fragment">
  tile.copy<8x8> %C_f -> %C : memref<8x8xf32, "fragment"> -> memref<8x8xf32>
  func.return
}
"""


def test_partial_barrier_orders_only_its_threads():
    # The fill's 64 elements belong to threads 0..63, the gemm is read by all 128.
    races = find_races(PARTIAL.replace("BARRIER", "pipeline.barrier id = 1, threads = 64"))
    assert races and {r.kind for r in races} == {"RAW"}
    assert int(races[0].second.agent.split()[-1]) >= 64
    assert find_races(PARTIAL.replace("BARRIER", "pipeline.barrier")) == []


def test_run_kernel_with_race_checking_raises():
    with pytest.raises(RaceError, match=r"race \(WAW\) on %S"):
        run_tile_kernel(kernel("waw.mlir"), "racy", check_races=True)


def test_every_sync_of_the_scheduled_kernels_is_needed():
    double_buffer = kernel("Inputs/double_buffer.mlir")
    assert len(list(sync_mutants(double_buffer))) == 6
    assert_every_sync_needed(double_buffer, index_args={"n": 3})
    assert_every_sync_needed(kernel("Inputs/bulk_copy.mlir"), index_args={"n": 3})


def test_a_superfluous_sync_is_named():
    # An extra barrier right after another one orders nothing new.
    text = kernel("Inputs/double_buffer.mlir").replace(
        "    pipeline.wait_group 1\n    pipeline.barrier\n",
        "    pipeline.wait_group 1\n    pipeline.barrier\n    pipeline.barrier\n",
    )
    with pytest.raises(AssertionError, match="without 'pipeline.barrier' at <input>:3[45]:5"):
        assert_every_sync_needed(text, index_args={"n": 3})


def test_assert_race_free_reports_the_races():
    assert_race_free(kernel("Inputs/double_buffer.mlir"), trip_counts=[0, 1, 2, 5])
    with pytest.raises(AssertionError, match=r"1 race\(s\) \(trip count 3\):\nrace \(WAR\)"):
        assert_race_free(kernel("slot-reuse.mlir"), trip_counts=[1, 3])


ARENA = """
func.func @k(%A: memref<32xf32>, %B: memref<64xf16>, %C: memref<64xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %arena = memref.alloc() : memref<128xi8, "shared">
  %words = memref.view %arena[%c0][] : memref<128xi8, "shared"> to memref<32xf32, "shared">
  %halves = memref.view %arena[%c0][] : memref<128xi8, "shared"> to memref<64xf16, "shared">
  tile.copy<30> %A -> %words : memref<32xf32> -> memref<32xf32, "shared">
  BARRIER
  tile.copy<64> %B -> %halves : memref<64xf16> -> memref<64xf16, "shared">
  tile.copy<64> %halves -> %C : memref<64xf16, "shared"> -> memref<64xf16>
  func.return
}
"""


def test_views_of_one_arena_conflict_on_shared_bytes():
    # 30 words go in 8-byte chunks (word j: thread j // 2), 64 halves in 16-byte chunks
    # (half i: thread i // 8): word 2 (thread 1) overlaps halves 4, 5 (thread 0).
    races = find_races(ARENA.replace("BARRIER", ""))
    assert {(r.kind, r.buffer) for r in races} == {("WAW", "%halves")}
    assert races[0].first.agent == "thread 1" and races[0].second.agent == "thread 0"
    assert find_races(ARENA.replace("BARRIER", "pipeline.barrier")) == []


def test_blocks_writing_the_same_tile_race():
    gemm = (SEMANTICS.parents[1] / "examples" / "gemm.mlir").read_text()
    same_tile = gemm.replace("-> %C[%m0, %n0]", "-> %C[%c0, %c0]")
    blocks = [(0, 0), (1, 0)]
    between = [r for r in find_races(same_tile, blocks=blocks) if r.between_blocks]
    assert [(r.kind, r.buffer, r.element, r.block) for r in between] == [
        ("WAW", "%C", (0, 0), (1, 0))
    ]
    assert between[0].first.agent == "block (0, 0)"
    assert "blocks never synchronize" in str(between[0])
    assert not any(r.between_blocks for r in find_races(gemm, blocks=blocks))
