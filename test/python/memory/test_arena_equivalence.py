"""Packing never changes results: kernels before and after merge-shared-memory compute
the same outputs in the interpreter, where views of one arena really alias."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import EXAMPLES, ROOT
from test_arena_chapter import scheduled_gemm
from tilepipe.core.flows import FLOWS

run_tile_kernel = pytest.importorskip("tilepipe.semantics.tile.grid_runner").run_tile_kernel

TILE_OPT = [sys.executable, "-m", "tilepipe"]
BLOCKS = [(0, 0), (3, 5)]


def tile_opt(text: str, passes: str) -> str:
    result = subprocess.run(
        TILE_OPT + ["-", "-p", passes], input=text, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def assert_same_outputs(original: str, transformed: str, blocks=BLOCKS) -> None:
    expected = run_tile_kernel(original, blocks=blocks)
    actual = run_tile_kernel(transformed, blocks=blocks)
    assert expected.keys() == actual.keys()
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=name)


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_pipelined_gemm_example_after_packing(num_stages):
    source = (EXAMPLES / "gemm.mlir").read_text()
    source = source.replace("num_stages = 3", f"num_stages = {num_stages}")
    merged = tile_opt(
        source, FLOWS["cuda"].spec("arena")
    )
    shared_allocs = re.findall(r"memref\.alloc\(\).*\"shared\">", merged)
    assert len(shared_allocs) == 1 and "arena.layout" in shared_allocs[0]
    assert merged.count("memref.view") == 2
    assert_same_outputs(source, merged)


@pytest.mark.parametrize("num_stages", [2, 3])
def test_reused_bytes_compute_the_same(num_stages):
    # C_shared lands in A_shared's bytes once A_shared is dead.
    scheduled = scheduled_gemm(num_stages, "epilogue")
    merged = tile_opt(scheduled, "merge-shared-memory")
    assert "%C_shared_offset = arith.constant 0 : index" in merged
    assert "%A_shared_offset = arith.constant 0 : index" in merged
    assert_same_outputs(scheduled, merged)


def test_overlapping_live_buffers_would_be_caught():
    # The check above can fail: put B_shared on A_shared's bytes while both are live.
    scheduled = scheduled_gemm(2, "epilogue")
    merged = tile_opt(scheduled, "merge-shared-memory")
    corrupted = re.sub(
        r"%B_shared_offset = arith.constant \d+ : index",
        "%B_shared_offset = arith.constant 0 : index",
        merged,
    )
    assert corrupted != merged
    with pytest.raises(AssertionError):
        assert_same_outputs(scheduled, corrupted, blocks=[(0, 0)])


def test_ascend_arenas_compute_the_same():
    text = (ROOT / "test" / "memory" / "merge-shared-memory-ascend.mlir").read_text()
    kernel = text.split("// -----")[0]
    merged = tile_opt(kernel, "merge-shared-memory")
    assert merged.count("arena.layout") == 5
    assert_same_outputs(kernel, merged, blocks=[(0,)])


def test_race_detector_sees_the_hazard_reuse_creates():
    # The scheduled kernel has no syncs yet, so it races anyway; packing adds the
    # races of C_shared's first write (tile.cast, in its fragment's layout) against the
    # last read (the epilogue gemm) and the last write (the copy) of A_shared's bytes.
    # Sync insertion must order these.
    find_races = pytest.importorskip("tilepipe.semantics.tile.grid_runner").find_races
    scheduled = scheduled_gemm(2, "epilogue")
    merged = tile_opt(scheduled, "merge-shared-memory")

    def races(text: str) -> set[tuple[str, ...]]:
        return {
            (r.kind, r.buffer, r.first.op.name, r.second.op.name)
            for r in find_races(text, blocks=[(0, 0)])
        }

    assert races(merged) - races(scheduled) == {
        ("WAR", "%C_shared", "tile.gemm", "tile.cast"),
        ("WAW", "%C_shared", "tile.copy", "tile.cast"),
    }
