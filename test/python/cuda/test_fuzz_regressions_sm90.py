"""sm_90 regressions of the December 2026 fuzzing campaign, and their neighbours.

``test/regressions/tma_*.mlir`` are the campaign's sm_90 reproducers (bulk copies,
mbarrier groups and their arena placement, validation of tma-copy's output);
``test/regressions/Inputs/sm90_*.mlir`` are small kernels around the same rules: a
copy no statement of its iteration reads, two copies behind one wait, copies of
different stages sharing a consumer, the first consumer in time order not in program
order, a copy read by the next iteration, a copy overwritten before it is read, an
mbarrier ring next to reused buffers, two TMA loops, lb != 0 with step 2, trip counts
below the depth.

Each goes through the sm_90 flow (P90) and must be race free in the happens-before
detector and bit-identical to the source, at trip counts 0 to 5 where the
kernel takes ``%n``; every mbarrier wait tma-copy placed is needed (deleting it makes
the detector report, or the kernel fail, at one of those trip counts);
``tilepipe compile --target sm_90`` must reach ptxas and be accepted.
"""

import pytest
from pipeline_helpers import apply_passes

from conftest import ROOT
from tilepipe.drivers.compile import compile_kernel
from tilepipe.semantics import KernelError, find_races
from tilepipe.semantics.testing import assert_equivalent, assert_race_free, sync_mutants
from tilepipe.core.flows import FLOWS

P90 = FLOWS["cuda"].spec("scheduled")
TRIP_COUNTS = (0, 1, 2, 3, 4, 5)
REGRESSIONS = ROOT / "test" / "regressions"
KERNELS = sorted(REGRESSIONS.glob("tma_*.mlir")) + sorted(
    (REGRESSIONS / "Inputs").glob("sm90_*.mlir")
)


def trip_counts(text: str):
    return TRIP_COUNTS if "%n: index" in text else None


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_race_free_and_equivalent(path):
    text = path.read_text()
    module = apply_passes(text, P90)
    assert_race_free(module, trip_counts=trip_counts(text))
    assert_equivalent(text, module, trip_counts=trip_counts(text))


def _fails(mutant, counts) -> bool:
    for count in counts or (None,):
        try:
            if find_races(mutant, index_args=None if count is None else {"n": count}):
                return True
        except KernelError:  # e.g. a deadlock
            return True
    return False


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_every_mbarrier_wait_is_needed(path):
    text = path.read_text()
    module = apply_passes(text, P90)
    unneeded = [
        description
        for description, mutant in sync_mutants(module)
        if "mbarrier_wait_parity" in description
        and not _fails(mutant, trip_counts(text))
    ]
    assert unneeded == []


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.name)
def test_ptxas_accepts(path):
    """Every kernel compiles, tma_bars_overlap_dead_write.mlir's multi-versioned
    fragment (%T1, written in stage 0 and read in stage 2) included."""
    result = compile_kernel(path.read_text(), path.name, "sm_90")
    (report,) = result.ptxas
    assert report.arch == "sm_90"


@pytest.mark.parametrize("pipelined", [True, False], ids=["3-stages", "1-stage"])
def test_nvvm_gemm_accumulates_like_the_tile_level(pipelined):
    """a K = 32 tensor-core gemm must be bit-identical after lower-to-nvvm
    (mma.sync adds each 16-wide K step to C in turn; the tile level has to sum in that
    order, ``numerics.gemm_accumulate``) after the sm_90 flow, pipelined or not."""
    from tilepipe.fuzz.check import Options, check_text

    text = (REGRESSIONS / "Inputs" / "nvvm_gemm_k_steps.mlir").read_text()
    if not pipelined:
        text = text.replace("num_stages = 3", "num_stages = 1")
    outcome = check_text(text, "sm_90", [None], Options(nvvm=True))
    assert not outcome.findings, "\n".join(map(str, outcome.findings))
