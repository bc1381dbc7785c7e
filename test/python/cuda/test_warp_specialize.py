"""warp-specialize (sm_90a): the producer/consumer form of a pipelined GEMM computes
what the loop computes, race and deadlock free, at every depth and trip count (0, 1,
fewer than the depth, dynamic), at the tile level (roles interleaved, the producer
furthest ahead) and per thread in the NVVM interpreter (roles concurrent); every
ring barrier is needed; the pipeline passes leave the ring alone (the chapter's
8.3: one owner per barrier)."""

import numpy as np
import pytest

from pipeline_helpers import apply_passes
from test_nvvm_tensor_maps import expected, operands, pipelined_gemm
from tilepipe.core.flows import FLOWS
from tilepipe.dialects.pipeline_sync import (
    BarrierOp,
    MBarrierArriveOp,
)
from tilepipe.dialects.pipeline_ws import WarpSpecializeOp
from tilepipe.semantics import KernelError, find_races
from tilepipe.semantics.testing import (
    SYNC_OPS,
    assert_equivalent,
    assert_every_sync_needed,
    assert_race_free,
    sync_mutants,
)

SCHEDULED = ",".join(FLOWS["cuda"].pass_names("scheduled"))
TRIPS = (0, 1, 2, 3, 5)


def small_gemm(stages: int, threads: int = 128, block_k: int = 64) -> str:
    """A 64x64 block (one consumer warpgroup, one m64n64 slab), K = block_k * %n."""
    return pipelined_gemm(stages, 64, 64, block_k, 64, 64, block_k * max(TRIPS), threads)


def scheduled(text: str):
    return apply_passes(text, SCHEDULED)


def specialized_op(module) -> WarpSpecializeOp:
    (ws,) = [op for op in module.walk() if isinstance(op, WarpSpecializeOp)]
    return ws


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_the_specialized_loop_computes_what_the_loop_computes(stages):
    text = small_gemm(stages)
    module = scheduled(text)
    specialized_op(module)
    assert not any(op.name == "pipeline.for" for op in module.walk())
    assert_equivalent(text, module, trip_counts=TRIPS)
    assert_race_free(module, trip_counts=TRIPS)


@pytest.mark.parametrize("stages", [2, 3])
def test_every_ring_barrier_is_needed(stages):
    """Deleting any wait, arrive, fence or barrier of the specialized kernel is a race
    or a deadlock at one of the trip counts (a wait of the producer's first lap passes
    at once: the second lap needs it)."""
    module = scheduled(small_gemm(stages))
    assert_every_sync_needed(module, trip_counts=(stages + 1, 2 * stages + 1))


def test_the_pipeline_passes_add_no_barrier_of_their_own():
    """Who owns the barrier: the only block barrier is the one before the roles split
    (publishing the mbarrier inits), nothing inside the roles."""
    module = scheduled(small_gemm(3))
    ws = specialized_op(module)
    assert not [op for op in ws.walk() if isinstance(op, BarrierOp)]
    barriers = [op for op in module.walk() if isinstance(op, BarrierOp)]
    assert len(barriers) == 1 and barriers[0].next_op is ws


def test_a_pipeline_barrier_added_back_is_rejected():
    """The "double barrier" failure mode: a block-wide barrier put back into a role is
    a verifier error (the other role never reaches it), not a silent slowdown."""
    from xdsl.utils.exceptions import VerifyException

    module = scheduled(small_gemm(2))
    ws = specialized_op(module)
    release = next(op for op in ws.consumer.walk() if isinstance(op, MBarrierArriveOp))
    release.parent_block().insert_op_before(BarrierOp(), release)
    with pytest.raises(VerifyException, match="block-wide barrier inside a warp-specialized"):
        module.verify()


def test_the_mutations_reach_every_ring_sync():
    """test_every_ring_barrier_is_needed deletes the producer's wait for a free slot,
    the consumers' wait for the copies and their release of the slot (and the fence
    and barrier that publish the inits)."""
    module = scheduled(small_gemm(2))
    described = [description.split("'")[1] for description, _ in sync_mutants(module)]
    assert described.count("pipeline.mbarrier_wait_parity") == 2
    assert described.count("pipeline.mbarrier_arrive") == 1
    assert {"pipeline.barrier", "pipeline.fence_proxy_async"} <= set(described)


def test_sm90_and_the_opt_out_keep_the_loop():
    text = small_gemm(2)
    for variant in (
        text.replace('"sm_90a"', '"sm_90"'),
        text.replace('tile.target = "sm_90a"', 'tile.target = "sm_90a", tile.warp_specialize = false'),
    ):
        module = scheduled(variant)
        assert not [op for op in module.walk() if isinstance(op, WarpSpecializeOp)]


# ------------------------------------------------------- per thread, roles concurrent

from test_nvvm_tensor_maps import lowered  # noqa: E402
from pipeline_helpers import deletions_not_noticed  # noqa: E402
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel  # noqa: E402

RING_SYNCS = (
    "nvvm.mbarrier.try_wait.parity",  # the producer's wait for a free slot, the consumers' for its copies
    "nvvm.mbarrier.arrive",  # the consumers' release
    "nvvm.mbarrier.arrive.expect_tx",  # the producer's arrival with the bytes
    "nvvm.barrier0",  # publishing the inits
    "nvvm.fence.proxy",
)


def _run(module, trips: int, m: int = 64, n: int = 64, k: int = 64 * max(TRIPS), **options):
    a, b, c = operands(m, n, k)
    run = run_nvvm_kernel(module, [a, b, c, np.array(trips)], check_races=True, **options)
    return run, expected(a, b, 64 * trips)


@pytest.mark.parametrize("stages", [1, 2, 3, 4])
def test_the_roles_run_concurrently_race_free_and_exact(stages):
    """Trip counts 0, 1, 2 and 5 (fewer than the depth, and laps of the ring): the
    producer's first lap passes its waits at once, later laps wait for the consumers'
    release; no hang, no race, A.B."""
    module = lowered(small_gemm(stages))
    names = {op.name for op in module.walk()}
    assert {"nvvm.setmaxregister", "nvvm.elect.sync"} <= names
    for trips in TRIPS:
        run, want = _run(module, trips)
        assert run.races == []
        np.testing.assert_allclose(run.outputs[2], want, atol=1e-3)


def test_ragged_shapes_zero_fill_in_the_producer():
    """M = 50, N = 40, K = 72 against 64x64x64 tiles: the producer's boxes reach past
    every edge and the hardware zero-fills; the consumers store only the array."""
    text = pipelined_gemm(3, 64, 64, 64, 50, 40, 72, 128)
    module = lowered(text)
    a, b, c = operands(50, 40, 72, seed=2)
    run = run_nvvm_kernel(module, [a, b, c, np.array(2)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 72), atol=1e-3)


def _fails(module, trips) -> bool:
    for count in trips:
        try:
            run, want = _run(module, count, stop_at_first_race=True)
        except NvvmExecutionError:  # a deadlock, or a broken wgmma rule
            return True
        if run.races or not np.allclose(run.outputs[2], want, atol=1e-3):
            return True
    return False


@pytest.mark.parametrize("stages", [2, 3])
def test_deleting_any_ring_sync_is_a_race_or_a_deadlock(stages):
    """Per thread, every wait, arrival, fence and barrier of the lowered kernel is
    needed at one of trip counts 1 .. 2 depth + 1 (the producer's wait for a free slot
    matters from the ring's second lap on)."""
    trips = (1, stages + 1, 2 * stages + 1)
    module = lowered(small_gemm(stages))
    assert not _fails(module, trips)
    assert {op.name for op in module.walk() if op.name in RING_SYNCS} == set(RING_SYNCS)
    assert deletions_not_noticed(module, RING_SYNCS, lambda m: _fails(m, trips)) == []


def test_the_example_gemm_is_warp_specialized():
    """examples/gemm_sm90a.mlir: two consumer warpgroups and a producer, 384 threads,
    each role with its register budget (test_nvvm_wgmma.py runs it on one block)."""
    from conftest import EXAMPLES

    module = lowered((EXAMPLES / "gemm_sm90a.mlir").read_text())
    kernel = next(op for op in module.walk() if op.name == "gpu.func")
    assert kernel.properties["known_block_size"].get_values()[0] == 384
    budgets = [
        (op.action_name, op.registers) for op in module.walk() if op.name == "nvvm.setmaxregister"
    ]
    assert budgets == [("decrease", 24), ("increase", 240)]


def test_ptxas_takes_setmaxnreg(ptxas_available):
    """ptxas -arch=sm_90a assembles the warp-specialized kernels without spills, with
    the register count at entry it needs to honour setmaxnreg (.maxnreg)."""
    from conftest import EXAMPLES
    from tilepipe.drivers.compile import compile_kernel

    for text in (small_gemm(3), (EXAMPLES / "gemm_sm90a.mlir").read_text()):
        result = compile_kernel(text, "kernel.mlir", "sm_90a")
        assert "setmaxnreg.dec.sync.aligned.u32" in result.ptx
        assert ".maxnreg" in result.ptx
        (report,) = result.ptxas
        assert report.spill_store_bytes == 0 and report.spill_load_bytes == 0


# ------------------------------------------------------------ flash attention, specialized

from test_flash_attention import BLOCK, inputs, reduced, tile_level  # noqa: E402
from test_flash_attention import lowered as lowered_attention  # noqa: E402

ATTENTION_SYNCS = (*RING_SYNCS, "nvvm.barrier", "nvvm.cp.async.wait.group")


def test_flash_attention_is_specialized_with_its_own_consumer_sync():
    """The producer fills the K and V ring; the consumers keep Q, P and the row
    statistics in shared memory of their own, which thread-sync syncs with the named
    barrier of the consumers (bar.sync 1, 128): none of it is block-wide."""
    module = scheduled(reduced(3, 2, "sm_90a"))
    ws = specialized_op(module)
    producer_copies = [op.name for op in ws.producer.walk() if op.name.startswith("pipeline.")]
    assert producer_copies.count("pipeline.bulk_copy") == 2  # K and V
    barriers = [op for op in ws.consumer.walk() if isinstance(op, BarrierOp)]
    assert barriers and all((b.barrier_id, b.thread_count) == (1, 128) for b in barriers)


@pytest.mark.parametrize("stages", [2, 3])
def test_flash_attention_specialized_equals_the_loop_and_every_sync_is_needed(stages):
    """At the tile level: bit-identical to the unspecialized loop at 1-4 KV blocks
    (fewer than, as many as and more than the ring's slots), race free, and deleting any
    sync (ring, consumer barrier, fence, Q's wait) is a race or a deadlock."""
    for kv_blocks in (1, 2, 4):
        text = reduced(kv_blocks, stages, "sm_90a")
        module = scheduled(text)
        specialized_op(module)
        data = inputs(kv_blocks)
        from tilepipe.semantics import run_tile_kernel

        want = run_tile_kernel(text, inputs=data)["O"]
        got = run_tile_kernel(module, inputs=data)["O"]
        np.testing.assert_array_equal(got, want)
        assert_race_free(module)
    # Each sync inside the roles.  (The fence and barrier publishing the inits order
    # them for the producer warpgroup, which the tile level folds into thread 0 and
    # the consumers' first barrier then covers: per thread, below, they are needed.)
    module = scheduled(reduced(stages + 1, stages, "sm_90a"))
    inside = [
        i for i, op in enumerate(module.walk())
        if isinstance(op, SYNC_OPS) and specialized_op(module).is_ancestor(op)
    ]
    assert len(inside) >= 6
    unnoticed = []
    for position in inside:
        mutant = module.clone()
        victim = list(mutant.walk())[position]
        victim.detach()
        victim.erase()
        try:
            noticed = bool(find_races(mutant))
        except KernelError:
            noticed = True
        if not noticed:
            unnoticed.append(f"#{position} {victim.name}")
    assert unnoticed == []


def test_flash_attention_per_thread_every_sync_is_needed():
    """Per thread, the roles concurrent: race free and attention; deleting any wait,
    arrival, named or block barrier, proxy fence or cp.async wait of the lowered kernel
    is a race, a deadlock or a wrong result."""
    kv_blocks = 3
    module = lowered_attention(reduced(kv_blocks, 2, "sm_90a"))
    assert any(op.name == "nvvm.setmaxregister" for op in module.walk())
    data = inputs(kv_blocks, seed=5)
    want = tile_level(kv_blocks, data)

    def fails(m) -> bool:
        arguments = [data[name].copy() for name in ("Q", "K", "V", "O")]
        try:
            run = run_nvvm_kernel(m, arguments, check_races=True, stop_at_first_race=True)
        except NvvmExecutionError:
            return True
        return bool(run.races) or not np.allclose(run.outputs[3][:BLOCK], want, atol=2e-4)

    assert not fails(module)
    present = {op.name for op in module.walk() if op.name in ATTENTION_SYNCS}
    assert present == set(ATTENTION_SYNCS)
    assert deletions_not_noticed(module, ATTENTION_SYNCS, fails) == []


def test_three_consumer_warpgroups_and_a_stage_order_loop():
    """A 192-row block over three consumer warpgroups (512 threads with the producer):
    setmaxnreg 24 / 160, TileLang's split for three consumers; the same loop written
    with TileLang-style stage/order arrays is specialized to the same ring."""
    text = pipelined_gemm(3, 192, 64, 64, 192, 64, 64 * 4, 384)
    for variant in (text, text.replace("num_stages = 3", "stage = [0, 0, 2] order = [0, 1, 2]")):
        module = lowered(variant)
        budgets = [
            (op.action_name, op.registers) for op in module.walk() if op.name == "nvvm.setmaxregister"
        ]
        assert budgets == [("decrease", 24), ("increase", 160)]
        run, want = _run(module, 4, m=192, n=64, k=64 * 4)
        assert run.races == []
        np.testing.assert_allclose(run.outputs[2], want, atol=1e-3)
