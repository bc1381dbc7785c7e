"""A warp-specialized GEMM's wgmmas stay in flight across an iteration (sm_90a):
warp-specialize releases each ring slot one iteration late, the lowering ends each
gemm with ``wgmma.wait_group 1`` and carries the accumulators through the loop.
Per thread, in the NVVM interpreter: exact and race free at every depth and trip
count; each of the things that make it safe is needed -- the wait that retires the
previous group before its slot goes back, the late release itself, the wait after
the loop before the accumulators are read."""

import re

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, UnitAttr
from xdsl.dialects.llvm import LLVMStructType

from test_nvvm_tensor_maps import expected, lowered, operands, pipelined_gemm
from tilepipe.core.flows import FLOWS
from tilepipe.dialects.pipeline_sync import MBarrierArriveOp, MBarrierWaitParityOp
from tilepipe.dialects.pipeline_ws import WGMMA_IN_FLIGHT_ATTR
from pipeline_helpers import apply_passes
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel

WAIT = "nvvm.wgmma.wait.group.sync.aligned"
TRIPS = (0, 1, 2, 3, 5, 9)
K = 64 * max(TRIPS)


def small_gemm(stages: int) -> str:
    return pipelined_gemm(stages, 64, 64, 64, 64, 64, K, 128)


def _run(module, trips: int, **options):
    a, b, c = operands(64, 64, K)
    run = run_nvvm_kernel(module, [a, b, c, np.array(trips)], check_races=True, **options)
    return run, expected(a, b, 64 * trips)


def _carrying_loop(module) -> scf.ForOp:
    (loop,) = [
        op for op in module.walk()
        if isinstance(op, scf.ForOp) and any(isinstance(t, LLVMStructType) for t in op.result_types)
    ]
    return loop


def _waits(ops) -> list[int]:
    return [op.properties["group"].value.data for op in ops if op.name == WAIT]


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_the_gemm_stays_in_flight_and_computes_the_product(stages):
    """The consumer loop carries the accumulators (no fragment register is touched
    in it), waits with one group in flight, and after the loop waits for all; per
    thread the result is A.B with no race at trip counts 0 .. 9."""
    module = lowered(small_gemm(stages))
    loop = _carrying_loop(module)
    assert _waits(loop.body.walk()) == [1]
    assert loop.next_op is not None and _waits([loop.next_op]) == [0]
    fragment_accesses = [
        op for op in loop.body.walk()
        if op.name in ("memref.load", "memref.store", "vector.load", "vector.store")
        and any("C_f" == (v.name_hint or "") for v in op.operands)
    ]
    assert fragment_accesses == []
    for trips in TRIPS:
        run, want = _run(module, trips)
        assert run.races == [], trips
        np.testing.assert_allclose(run.outputs[2], want, atol=1e-3)


def _fails(module, trips=(3, 5)) -> str | None:
    for count in trips:
        try:
            run, want = _run(module, count, stop_at_first_race=True)
        except NvvmExecutionError as error:
            return str(error)
        if run.races:
            return "race"
        if not np.allclose(run.outputs[2], want, atol=1e-3):
            return "wrong result"
    return None


def test_each_wgmma_wait_is_needed():
    """Deleting the in-loop wait leaves every group unretired when its slot goes back
    (a race with the producer's next copy into it); deleting the one after the loop
    reads the accumulators while the last group runs."""
    module = lowered(small_gemm(3))
    assert _fails(module) is None
    for wait in [op for op in module.walk() if op.name == WAIT]:
        block, following = wait.parent_block(), wait.next_op
        wait.detach()
        try:
            assert _fails(module) is not None, wait
        finally:
            block.insert_op_before(wait, following)


def test_a_deeper_wait_is_a_race():
    """wait_group 2 leaves the previous iteration's group running when its slot is
    released: the producer's tensor copy into the slot races with its reads."""
    module = lowered(small_gemm(3))
    loop = _carrying_loop(module)
    (wait,) = [op for op in loop.body.walk() if op.name == WAIT]
    wait.properties["group"] = IntegerAttr(2, wait.properties["group"].type)
    assert _fails(module) == "race"


def test_releasing_the_slot_of_the_gemm_in_flight_is_a_race():
    """The late release is what makes wait_group 1 safe: the same lowering with each
    iteration releasing its own slot hands the producer a slot the gemm still reads."""
    text = small_gemm(3)
    scheduled = ",".join(FLOWS["cuda"].pass_names("scheduled"))
    rest = [p for p in FLOWS["cuda"].passes if p not in FLOWS["cuda"].pass_names("scheduled")]
    module = apply_passes(text, scheduled)
    (loop,) = [op for op in module.walk() if WGMMA_IN_FLIGHT_ATTR in op.attributes]
    body = loop.body.block
    (wait,) = [op for op in body.ops if isinstance(op, MBarrierWaitParityOp)]
    (guard,) = [op for op in body.ops if isinstance(op, scf.IfOp)]
    (release,) = [op for op in guard.walk() if isinstance(op, MBarrierArriveOp)]
    release.detach()
    release.operands[1] = wait.operands[1]  # this iteration's slot
    body.insert_op_before(release, guard)
    guard.detach()
    guard.erase()
    module = apply_passes(str(module), ",".join(rest))
    assert _waits(_carrying_loop(module).body.walk()) == [1]
    assert _fails(module) == "race"


def test_a_marked_loop_whose_accumulator_is_read_retires_each_gemm():
    """The lowering keeps a gemm in flight only where nothing else in the loop reads
    its accumulator: flash attention's loop, marked by hand, still waits for every
    group in its iteration, and carries no accumulator."""
    from conftest import EXAMPLES

    text = (EXAMPLES / "flash_attention.mlir").read_text().replace('"sm_80"', '"sm_90a"')
    scheduled = FLOWS["cuda"].pass_names("scheduled")
    module = apply_passes(text, ",".join(scheduled))
    consumer_loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert not any(WGMMA_IN_FLIGHT_ATTR in op.attributes for op in consumer_loops)
    for op in consumer_loops:
        op.attributes[WGMMA_IN_FLIGHT_ATTR] = UnitAttr()
    rest = [p for p in FLOWS["cuda"].passes if p not in scheduled]
    module = apply_passes(str(module), ",".join(rest))
    assert not [
        op for op in module.walk()
        if isinstance(op, scf.ForOp) and any(isinstance(t, LLVMStructType) for t in op.result_types)
    ]
    assert set(_waits(module.walk())) == {0}
    assert not any(WGMMA_IN_FLIGHT_ATTR in op.attributes for op in module.walk())


def test_ptxas_keeps_the_wgmmas_asynchronous(ptxas_available):
    """ptxas -arch=sm_90a assembles the example GEMM without serializing its wgmmas
    (it says "wgmma.mma_async instructions are serialized" where it must)."""
    from conftest import EXAMPLES
    from tilepipe.drivers.compile import compile_kernel

    for text in (small_gemm(3), (EXAMPLES / "gemm_sm90a.mlir").read_text()):
        result = compile_kernel(text, "kernel.mlir", "sm_90a")
        assert re.search(r"wgmma\.wait_group\.sync\.aligned\s+1;", result.ptx)
        (report,) = result.ptxas
        assert "serialized" not in report.log
        assert report.spill_store_bytes == 0 and report.spill_load_bytes == 0


def test_seventeen_trips_and_the_rings_phases_carried_not_divided():
    """17 trips at depth 3 (five laps and a part): exact and race free.  Both roles'
    loops carry the ring's slot and its lap's parity (slots.RotateSlotCounters) --
    no division or remainder by the depth is left in either loop."""
    module = lowered(pipelined_gemm(3, 64, 64, 64, 64, 64, 64 * 17, 128))
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    role_loops = [
        loop for loop in loops
        if any(op.name == "nvvm.mbarrier.try_wait.parity" for op in loop.body.walk())
    ]
    assert len(role_loops) == 2
    divisions = {"arith.divsi", "arith.divui", "arith.remsi", "arith.remui"}
    for loop in role_loops:
        by_depth = [
            op for op in loop.body.walk()
            if op.name in divisions and getattr(op.operands[1].owner, "value", None) is not None
            and op.operands[1].owner.value.value.data == 3
        ]
        assert by_depth == []
    a, b, c = operands(64, 64, 64 * 17)
    run = run_nvvm_kernel(module, [a, b, c, np.array(17)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 64 * 17), atol=1e-3)
