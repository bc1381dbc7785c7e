"""thread-sync's bulk-copy coverage (passes/cuda/bulk_coverage.py) against deleted waits.

The sm_90 kernels whose prologue copies are landed under correlated guards
(test/regressions/Inputs/sm90_*.mlir) are accepted; deleting any one mbarrier wait
that tma-copy placed, *before* thread-sync runs, must make thread-sync reject the
kernel with a located error: a guarded wait on another mbarrier slot, or under a
guard the copy does not imply, must not stand in for the deleted one.
"""

import pytest
from pipeline_helpers import apply_passes, context
from xdsl.passes import PassPipeline

from conftest import ROOT
from tilepipe.diagnostics import OpDiagnosticError
from tilepipe.dialects.pipeline_sync import MBarrierWaitOp
from tilepipe.registry import get_all_passes

BEFORE_SYNC = (
    "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,"
    "merge-shared-memory,async-copy"
)
INPUTS = ROOT / "test" / "regressions" / "Inputs"
CORRELATED = [
    "sm90_ring_next_to_reuse.mlir",
    "sm90_stages_share_consumer.mlir",
    "sm90_first_consumer_in_time.mlir",
    "sm90_two_tma_loops.mlir",
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


@pytest.mark.parametrize("name", CORRELATED)
def test_deleted_wait_is_an_error(name):
    module = apply_passes((INPUTS / name).read_text(), BEFORE_SYNC)
    thread_sync = PassPipeline.parse_spec(get_all_passes(), "thread-sync")
    accepted = []
    for position, mutant in _without_each_wait(module):
        try:
            thread_sync.apply(context(), mutant)
        except OpDiagnosticError as err:
            assert "no mbarrier wait lands" in str(err)
        else:
            accepted.append(position)
    assert accepted == []
