"""wgmma on sm_90a, per thread in the NVVM interpreter: a tile.gemm whose operands are
shared tiles a matrix descriptor addresses runs as ``wgmma.mma_async`` chains of its
warpgroups, bit-exact against the tile level (K-major and MN-major operands, the three
swizzle modes, f16 and bf16, several slabs and warpgroups, N split over instructions,
a K tail on the scalar path), pipelined behind tensor-map copies at num_stages 1-4
and trip counts 0, 1, 2, 17, and ragged; every wgmma fence, commit and wait is needed.
The interpreter decodes descriptors from the PTX ISA's canonical layouts, the
lowering builds them from ``swizzle.py``'s permutations: these runs are where the two
must agree."""

import numpy as np
import pytest

from pipeline_helpers import apply_passes, deletions_not_noticed
from test_nvvm_gemm_paths import _assert_bit_exact, _run_both, gemm_text
from test_nvvm_tensor_maps import MAX_TRIPS, expected, gemm, lowered, operands
from tilepipe.dialects.nvvm import WgmmaFenceAlignedOp
from tilepipe.drivers.compile import compile_kernel
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel
from tilepipe.semantics.nvvm.wgmma import Descriptor

WGMMA = "nvvm.wgmma.mma_async"
WGMMA_SYNCS = (
    "nvvm.wgmma.fence.aligned",
    "nvvm.wgmma.commit.group.sync.aligned",
    "nvvm.wgmma.wait.group.sync.aligned",
)


def _on_sm90a(text: str) -> str:
    return text.replace('tile.target = "sm_80"', 'tile.target = "sm_90a"')


def _count(module, name: str) -> int:
    return sum(op.name == name for op in module.walk())


# (m, n, k, dtype, threads, (transpose_a, transpose_b), wgmma ops, mma.sync ops)
CASES = [
    # A K-major in the 128B mode, B MN-major (64 columns: 128-byte rows): 4 k-steps.
    (64, 64, 64, "f16", 128, (False, False), 4, 0),
    # B K-major (stored N x K, 64-byte rows: the 64B mode), bf16.
    (64, 32, 32, "bf16", 128, (False, True), 2, 0),
    # A MN-major (stored K x M), 32-byte rows of B^T: the 32B mode.
    (64, 64, 16, "f16", 128, (True, True), 1, 0),
    # Two 64-row slabs in one warpgroup; two warpgroups of 256 threads.
    (128, 64, 32, "f16", 128, (False, True), 4, 0),
    (128, 64, 32, "bf16", 256, (False, True), 2, 0),
    # One warpgroup of two: the other skips the gemm.
    (64, 32, 16, "f16", 256, (False, True), 1, 0),
    # N = 320: two instructions of 160 columns.
    (64, 320, 16, "f16", 128, (False, True), 2, 0),
    # K = 24 (both operands MN-major): one wgmma step, the last 8 on the scalar path.
    (64, 64, 24, "f16", 128, (True, False), 1, 0),
]


@pytest.mark.parametrize("m, n, k, dtype, threads, transposes, wgmmas, mmas", CASES)
def test_wgmma_gemm_matches_the_tile_level(m, n, k, dtype, threads, transposes, wgmmas, mmas):
    text = _on_sm90a(gemm_text(m, n, k, dtype, threads, *transposes))
    inputs, tile_level, run, module = _run_both(text)
    assert _count(module, WGMMA) == wgmmas
    assert _count(module, "nvgpu.mma.sync") + _count(module, "nvvm.mma.sync") == mmas
    _assert_bit_exact(inputs, tile_level, run)


def test_operands_no_descriptor_addresses_run_mma_sync_in_the_same_layout():
    """A's rows of 96 bytes are no swizzle mode: no wgmma layout, mma.sync as on sm_90;
    the result is the same bits either way."""
    text = _on_sm90a(gemm_text(64, 64, 48, "f16", 128))
    inputs, tile_level, run, module = _run_both(text)
    assert _count(module, WGMMA) == 0
    assert _count(module, "nvgpu.mma.sync") > 0
    _assert_bit_exact(inputs, tile_level, run)


@pytest.mark.parametrize(
    "stages, trips", [(1, 2), (2, 0), (2, 1), (2, 17), (3, 2), (3, 17), (4, 1), (4, 17)]
)
def test_pipelined_gemm_on_wgmma_is_race_free_and_exact(stages, trips):
    module = lowered(gemm(stages))
    assert _count(module, WGMMA) > 0 and _count(module, "nvgpu.ldmatrix") == 0
    a, b, c = operands(128, 128, 64 * MAX_TRIPS)
    run = run_nvvm_kernel(module, [a, b, c, np.array(trips)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 64 * trips), atol=1e-3)


def test_ragged_gemm_on_wgmma_reads_the_zero_filled_boxes():
    module = lowered(gemm(3, m=100, n=120, k=72))
    assert _count(module, WGMMA) > 0
    a, b, c = operands(100, 120, 72, seed=3)
    run = run_nvvm_kernel(module, [a, b, c, np.array(2)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], expected(a, b, 72), atol=1e-3)


def _fails(module, arguments, trips) -> bool:
    for count in trips:
        try:
            run = run_nvvm_kernel(
                module, [*arguments, np.array(count)], check_races=True, stop_at_first_race=True
            )
        except NvvmExecutionError:  # a hang, or a wgmma rule broken
            return True
        if run.races:
            return True
    return False


SYNCS = (
    "nvvm.barrier0",
    "nvvm.fence.proxy",
    "nvvm.mbarrier.arrive.expect_tx",
    "nvvm.mbarrier.try_wait.parity",
    *WGMMA_SYNCS,
)


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_every_sync_of_the_wgmma_gemm_is_needed(stages):
    """Deleting any barrier, proxy fence, mbarrier arrival or wait, wgmma fence, commit
    or wait is a race, a hang or a broken wgmma rule at one of trip counts 1 to
    depth + 4 (the steady loop's WAR barrier shows once a slot is reused)."""
    trips = tuple(range(1, stages + 5))
    module = lowered(gemm(stages, k=64 * max(trips)))
    arguments = list(operands(128, 128, 64 * max(trips)))
    assert not _fails(module, arguments, trips)
    assert {op.name for op in module.walk() if op.name in SYNCS} == set(SYNCS)
    assert deletions_not_noticed(module, SYNCS, lambda m: _fails(m, arguments, trips)) == []


def test_sm90a_gemm_and_flash_attention_assemble(ptxas_available):
    """ptxas -arch=sm_90a takes the wgmma kernels, with no spills."""
    for text in (gemm(3), gemm(4, block_k=32)):
        (report,) = compile_kernel(text, "gemm.mlir", "sm_90a").ptxas
        assert report.spill_store_bytes == 0 and report.spill_load_bytes == 0


# ----------------------------------------------------------------- the model by itself


def _descriptor(start: int, leading: int, stride: int, mode: int) -> int:
    return (start >> 4) | (leading >> 4) << 16 | (stride >> 4) << 32 | mode << 62


def test_a_k_major_descriptor_reads_rows_of_atoms():
    """128B mode, SBO 1024: row r of the operand at (r % 8) * 128 + (r / 8) * 1024, its
    16 elements contiguous, then the address bits 4-6 XOR bits 7-9."""
    descriptor = Descriptor.decode(WgmmaFenceAlignedOp(), _descriptor(2048 + 32, 16, 1024, 1))
    addresses = descriptor.addresses(64, k_major=True)
    for r in (0, 1, 7, 8, 63):
        for k in (0, 5, 15):
            linear = 2048 + 32 + (r % 8) * 128 + (r // 8) * 1024 + 2 * k
            assert addresses[r, k] == linear ^ (((linear >> 7) & 7) << 4)


def test_an_mn_major_descriptor_steps_panels_by_its_leading_offset():
    """64B mode: 32 MN-elements per atom row, the next 32 at LBO; K-rows 8 apart at SBO."""
    descriptor = Descriptor.decode(WgmmaFenceAlignedOp(), _descriptor(0, 4096, 512, 2))
    addresses = descriptor.addresses(64, k_major=False)
    for mn in (0, 31, 32, 63):
        for k in (0, 7, 8, 15):
            linear = (mn % 32) * 2 + (mn // 32) * 4096 + (k % 8) * 64 + (k // 8) * 512
            assert addresses[mn, k] == linear ^ (((linear >> 7) & 3) << 4)


@pytest.mark.parametrize(
    "bits, message",
    [
        (_descriptor(0, 16, 1024, 0), "without a swizzle mode"),
        (_descriptor(0, 16, 1024, 1) | 1 << 49, "base offset"),
    ],
)
def test_descriptors_the_model_does_not_cover_are_refused(bits, message):
    with pytest.raises(NvvmExecutionError, match=message):
        Descriptor.decode(WgmmaFenceAlignedOp(), bits)
