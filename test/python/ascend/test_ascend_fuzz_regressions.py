"""Ascend findings of the differential fuzzer (kernels in
test/ascend/Inputs/fuzz/): after the Ascend pipeline, in both index modes, the pipe
simulator finds no race, deadlock or flag misuse and computes bit for bit what the
tile interpreter computes on the source, at every trip count the kernel allows."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT
from tilepipe.fuzz.check import check_text, parse
from tilepipe.core.flows import run_flow
from tilepipe.semantics import execute
from tilepipe.semantics.ascend.sim import run_ascend_kernel
from tilepipe.semantics.compare import first_difference
from tilepipe.semantics.tile.grid_runner import random_array

FUZZ = ROOT / "test" / "ascend" / "Inputs" / "fuzz"
# Kernel -> the values of %n it is defined for (None: no %n).
TRIP_COUNTS = {
    "zero_trip_loop_race.mlir": [0, 1, 2, 3, 5],
    "f16_exp_numerics.mlir": [None],
    "l0c_fill_index_math.mlir": [0, 1, 2, 3],
    "multi_block.mlir": [None],
    # ascend-zero-boundary-tiles' guarded fills (campaign of session 5).
    "ragged_fill_ring_300032.mlir": [None],
    "ragged_fill_ring_300113.mlir": [None],
    "ragged_fill_ring_300191.mlir": [1, 2, 5],
    # Their flags within the budget (campaign of session 6).
    "lock_pool_ragged_fills_400248.mlir": [0, 1, 2, 5],
}
CASES = [(name, trips) for name in sorted(TRIP_COUNTS) for trips in TRIP_COUNTS[name]]


@pytest.mark.parametrize("index_mode", ["iteration", "counter"])
@pytest.mark.parametrize(("name", "trips"), CASES)
def test_compiled_kernel_is_clean_and_equivalent(name, trips, index_mode):
    text = (FUZZ / name).read_text()
    module = run_flow(parse(text), "ascend", options={"ascend-prepare-multi-buffer": f"index_mode={index_mode}"})
    kernel = next(op for op in module.walk() if op.name == "func.func")
    rng = np.random.default_rng(0)
    inputs = {
        arg.name_hint: random_array(arg.type, rng)
        for arg in kernel.body.block.args
        if arg.name_hint != "n"
    }
    index_args = {} if trips is None else {"n": trips}
    expected = execute(text, inputs={k: v.copy() for k, v in inputs.items()}, index_args=index_args)
    report = run_ascend_kernel(module, inputs, index_args)
    assert report.ok, report.problems()
    assert first_difference(expected.outputs, report.outputs, "tile level", "pipe simulator") is None


@pytest.mark.parametrize("name", sorted(TRIP_COUNTS))
def test_fuzz_check_finds_nothing(name):
    """The campaign's own check (python -m tilepipe.fuzz.check) on each reproducer."""
    text = (FUZZ / name).read_text()
    outcome = check_text(text, "ascend910b", TRIP_COUNTS[name])
    assert outcome.compiled
    assert not outcome.findings, [str(f) for f in outcome.findings]
