"""The bounded, seeded CI sample of the differential fuzzer (docs/fuzzing.md).

Kernels ``generate(seed, target)`` for seeds ``SEED .. SEED + COUNT - 1``, round robin
over sm_80, sm_90, sm_90a and ascend910b, each through its whole flow in-process
(tilepipe/fuzz/check.py); the sample asserts that no kernel fails.  ``TILEPIPE_FUZZ_COUNT``
raises the count (the default, 15 kernels per target, is the smallest whose CUDA kernels
include every kind of real shape; ``TILEPIPE_TESTS=long`` runs 400).
"""

from __future__ import annotations


import pytest

from sweeps import sample_size
from tilepipe.fuzz.__main__ import TARGETS, summary_table
from tilepipe.fuzz.check import Options, check_program
from tilepipe.fuzz.generate import generate

SEED = 20261201
COUNT = sample_size("TILEPIPE_FUZZ_COUNT", quick=60, long=400)


def test_generation_is_deterministic():
    for target in TARGETS:
        assert generate(7, target).text() == generate(7, target).text()


def test_the_generator_covers_the_surface():
    """Over the sample's seeds the generator reaches every op, memory space, dtype and
    loop shape the brief lists."""
    ops, spaces, dtypes, kinds = set(), set(), set(), set()
    schedules, trips, steps, grids = set(), set(), set(), set()
    for i in range(120):
        program = generate(SEED + i, TARGETS[i % len(TARGETS)])
        kinds.add(program.kind)
        grids.add(program.grid > 1 and program.use_block_id)
        for stmt in program.statements():
            ops.add(stmt.op)
            for name in stmt.operands:
                spaces.add(program.buffers[name].space)
                dtypes.add(program.buffers[name].dtype)
        for loop in program.loops:
            schedules.add("arrays" if loop.stage else f"num_stages={loop.num_stages}")
            trips.add("dynamic" if loop.trips is None else min(loop.trips, 6))
            steps.add((loop.lb != 0, loop.step > 1))
    assert ops >= {"copy", "gemm", "fill", "add", "sub", "mul", "max", "div", "exp", "cast",
                   "reduce", "broadcast", "atomic_add"}
    assert spaces >= {"global", "shared", "fragment", "local", "l1", "l0a", "l0b", "l0c", "ub"}
    assert dtypes >= {"f16", "bf16", "f32"}
    assert kinds >= {"cuda", "ascend-vector", "ascend-cube", "ascend-mixed"}
    assert "arrays" in schedules and {f"num_stages={n}" for n in range(1, 6)} <= schedules
    assert {0, 1, 2, 6, "dynamic"} <= trips and (True, True) in steps and True in grids


def test_the_cuda_sample_has_real_shapes():
    """Ragged static arrays and dynamic dimensions (with loop bounds and a grid from the
    sizes, and divisibility facts) are in the CI sample on both CUDA targets."""
    if COUNT < 60:
        pytest.skip("a sample smaller than the default")
    for target in ("sm_80", "sm_90", "sm_90a"):
        shaped = [
            p for i in range(COUNT // len(TARGETS)) if (p := generate(SEED + i, target)).shape_cases
        ]
        assert any(not p.dynamic for p in shaped) and any(p.dynamic for p in shaped)
        assert any(p.grid_from_shape for p in shaped)
        assert any(loop.from_dim for p in shaped for loop in p.loops)
        assert any(p.divisibility for p in shaped)


@pytest.mark.parametrize("target", TARGETS)
def test_sample_has_no_failures(target):
    outcomes = []
    for i in range(COUNT // len(TARGETS)):
        program = generate(SEED + i, target)
        outcomes.append(check_program(program, Options(syntax=i % 5 == 0)))
    failing = [
        f"seed {o.seed}: " + "; ".join(str(f) for f in o.findings) for o in outcomes if o.findings
    ]
    assert not failing, summary_table(outcomes, [target]) + "\n" + "\n".join(failing)
