"""thread-sync's bulk-copy coverage (passes/cuda/bulk_coverage.py) against deleted waits.

The sm_90 kernels -- those whose prologue copies are landed under correlated guards
(test/regressions/Inputs/sm90_*.mlir), the fuzz reproducers and the examples -- are
accepted; deleting any one mbarrier wait that tma-copy placed, *before* thread-sync
runs, must make thread-sync reject the kernel with a located error: a wait on
another mbarrier slot (one on every path, in the copy's iteration, the access's or
one between), or under a guard the copy does not imply, must not stand in for the
deleted one.
"""

import pytest
from pipeline_helpers import apply_passes, context, example_kernel
from xdsl.passes import PassPipeline

from conftest import ROOT
from sweeps import long_mode
from tilepipe.core.diagnostics import OpDiagnosticError
from tilepipe.dialects.pipeline_sync import MBarrierWaitOp
from tilepipe.core.registry import get_all_passes
from tilepipe.core.flows import FLOWS

BEFORE_SYNC = FLOWS["cuda"].spec("scheduled").removesuffix(",thread-sync")
INPUTS = ROOT / "test" / "regressions" / "Inputs"
CORRELATED = [
    "sm90_ring_next_to_reuse.mlir",
    "sm90_stages_share_consumer.mlir",
    "sm90_first_consumer_in_time.mlir",
    "sm90_two_tma_loops.mlir",
]
# A ring's wait of the next iteration, or of a copy into another slot, used to stand
# in for the deleted wait (the race detector alone reported these).
OTHER_SLOT = [
    INPUTS / "sm90_overwritten_copy.mlir",
    INPUTS / "sm90_bulk_waw_after_loop.mlir",
    INPUTS / "sm90_dead_copy_dynamic.mlir",
    INPUTS / "sm90_lb_step.mlir",
    INPUTS / "sm90_loop_in_if.mlir",
    INPUTS / "sm90_two_copies_one_wait.mlir",
    ROOT / "test" / "regressions" / "tma_bars_reuse_war.mlir",
    ROOT / "test" / "regressions" / "tma_order_tma_bars.mlir",
]


def _without_each_wait(module):
    positions = [i for i, op in enumerate(module.walk()) if isinstance(op, MBarrierWaitOp)]
    assert positions
    for position in positions:
        mutant = module.clone()
        victim = list(mutant.walk())[position]
        victim.detach()
        victim.erase()
        yield position, mutant


def _accepted_without_a_wait(text: str) -> list[int]:
    module = apply_passes(text, BEFORE_SYNC)
    thread_sync = PassPipeline.parse_spec(get_all_passes(), "thread-sync")
    accepted = []
    for position, mutant in _without_each_wait(module):
        try:
            thread_sync.apply(context(), mutant)
        except OpDiagnosticError as err:
            assert "no mbarrier wait lands" in str(err)
        else:
            accepted.append(position)
    return accepted


@pytest.mark.parametrize("name", CORRELATED)
def test_deleted_wait_is_an_error(name):
    assert _accepted_without_a_wait((INPUTS / name).read_text()) == []


@pytest.mark.parametrize("path", OTHER_SLOT, ids=lambda p: p.name)
def test_deleted_wait_is_not_covered_by_a_wait_on_another_slot(path):
    assert _accepted_without_a_wait(path.read_text()) == []


@pytest.mark.parametrize("num_stages", [2, 3, 4])
@pytest.mark.parametrize("name", ["gemm.mlir", "gemm_epilogue.mlir"])
def test_deleted_wait_of_an_example_is_an_error(name, num_stages):
    """The steady state's wait lands the copy of an earlier iteration; the waits of
    the iterations between (other slots of the ring) do not."""
    assert _accepted_without_a_wait(example_kernel(name, num_stages, 6, "sm_90")) == []


@pytest.mark.skipif(
    not long_mode("TILEPIPE_SLOW_REGRESSIONS"),
    reason="about a minute: set TILEPIPE_SLOW_REGRESSIONS=long (or TILEPIPE_TESTS=long)",
)
def test_fuzz_seed_700607_a_copy_landed_before_a_later_loops_epilogue_compiles():
    from tilepipe.fuzz.check import Options, check_text
    from tilepipe.fuzz.check_run import Case

    # Not in test/regressions/Inputs: the sm_90 regression suite globs those, and
    # this kernel's thread-sync takes half a minute.
    text = (ROOT / "test" / "python" / "fuzz" / "Inputs" / "sm90_bulk_wait_past_overlap_budget.mlir").read_text()
    outcome = check_text(text, "sm_90", [Case(1), Case(5), Case(7)], Options(determinism=False))
    assert outcome.compiled and outcome.findings == [], [str(f) for f in outcome.findings]
