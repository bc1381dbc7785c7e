"""A flag ring whose set could come before its wait (fuzz seeds 300032,
300113, 300191 had the shape): ``ascend-insert-sync`` replaces it by a
``pipe_barrier[ALL]`` before its consumer.  The kernel below zeroes its UB tile in a
branch taken only by the ragged last tile, as ``ascend-zero-boundary-tiles`` once did
(compiled without that pass, whose zeroing now follows the copy unguarded):
the ring from the store of a slot to the next fill of that slot is set in every
iteration but ordered after its wait only in iterations that take the branch."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT
from xdsl.context import Context
from xdsl.passes import PassPipeline

from tilepipe.core.flows import FLOWS, run_flow
from tilepipe.core.registry import get_all_passes
from tilepipe.passes.ascend import sync_analysis
from tilepipe.semantics import execute
from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.compare import first_difference
from tilepipe.semantics.tile.grid_runner import load_module

GUARDED_FILL = (ROOT / "test" / "ascend" / "Inputs" / "guarded_fill_dynamic.mlir").read_text()
SIZES = [1, 255, 256, 257, 700, 1024]


def _compile_without_zeroing(text: str):
    """The Ascend pipeline without ``ascend-zero-boundary-tiles``: the kernel zeroes
    its ragged tile itself, before the copy and in a branch, as that pass once did
    (its own zeroing now follows the copy, unguarded, and would close the ring)."""
    spec = FLOWS["ascend"].spec().replace("ascend-zero-boundary-tiles,", "")
    module = load_module(text)
    PassPipeline.parse_spec(get_all_passes(), spec).apply(Context(), module)
    return module


def _run(size: int):
    x = np.random.default_rng(size).uniform(-1, 1, size).astype(np.float16)
    inputs = {"x": x, "z": np.full(size, 7, np.float16)}
    trips = {"n": -(-size // 256)}
    expected = execute(GUARDED_FILL, inputs={k: v.copy() for k, v in inputs.items()}, index_args=trips)
    return expected, run_ascend_kernel(_compile_without_zeroing(GUARDED_FILL), inputs, trips)


@pytest.mark.parametrize("size", SIZES)
def test_an_open_ring_is_fenced_and_the_kernel_is_clean(size):
    expected, report = _run(size)
    assert report.ok, report.problems()
    assert first_difference(expected.outputs, report.outputs, "tile level", "pipe simulator") is None


def test_the_fence_is_needed(monkeypatch):
    """Kept as flags (the ring taken as closed), the store's ring into the fill is set
    a second time before its wait: the pipe simulator reports it."""
    monkeypatch.setattr(sync_analysis, "_closed", lambda *args, **kwargs: True)
    problems = []
    for size in SIZES:
        _, report = _run(size)
        problems.extend(report.problems())
    assert any("second set" in p or "stuck" in p for p in problems), problems


def test_closed_rings_keep_their_flags():
    """A ring closed by the kernel's own edges (the copy-in -> store RAW closes the
    store -> next copy-in WAR ring) stays a flag ring: no fence in a plain pipeline."""
    vadd = (ROOT / "examples" / "ascend_vadd.mlir").read_text()
    module = run_flow(load_module(vadd), "ascend")
    ops = [op.name for op in module.walk()]
    assert "ascend.set_flag" in ops
    assert not any(
        op.name == "ascend.pipe_barrier" and "ALL" in str(op) for op in module.walk()
    )


def test_a_same_iteration_flag_takes_the_ids_its_closure_needs(monkeypatch):
    """A copy-in feeding a long vector chain: its copy -> exp flag needs both ids of
    the buffer's ring (the vector pipe is held back only by the WAR ring two iterations
    later).  Given one id (every point taken as closed), the copy of the next iteration
    sets it again before the vector pipe has waited: the pipe simulator reports it."""
    text = (ROOT / "test" / "ascend" / "Inputs" / "slow_vector_consumer.mlir").read_text()
    inputs = {
        "x": np.random.default_rng(0).uniform(-0.1, 0.1, 8192).astype(np.float32),
        "z": np.zeros(8192, np.float32),
    }
    expected = execute(text, inputs={k: v.copy() for k, v in inputs.items()})
    report = run_ascend_kernel(run_flow(load_module(text), "ascend"), inputs)
    assert report.ok, report.problems()
    assert first_difference(expected.outputs, report.outputs, "tile level", "pipe simulator") is None
    monkeypatch.setattr(sync_analysis, "_closed", lambda *args, **kwargs: True)
    report = run_ascend_kernel(run_flow(load_module(text), "ascend"), inputs)
    assert any("second set" in p or "stuck" in p for p in report.problems()), report.problems()
