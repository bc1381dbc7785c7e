"""The shared-memory bank-conflict model of the NVVM interpreter (``nvvm_banks``):
the counting function on hand-built address patterns, then the wavefronts of the
lowered reduced GEMM of ``test_nvvm_interp``."""


import numpy as np
from test_nvvm_interp import A, B, EXACT, REDUCED_GEMM

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics.nvvm.banks import BankCounter, count_wavefronts, total_wavefronts
from tilepipe.semantics.nvvm.interp import NvvmRun, run_nvvm_kernel

LANES = np.arange(32)

# ---------------------------------------------------------------------- the counting


def test_consecutive_words_take_one_wavefront():
    assert count_wavefronts(4 * LANES, 4) == (1, 1)


def test_a_stride_of_128_bytes_is_a_32_way_conflict():
    assert count_wavefronts(128 * LANES, 4) == (32, 1)


def test_one_word_for_all_threads_is_a_broadcast():
    assert count_wavefronts(np.full(32, 256), 4) == (1, 1)
    # two threads per word (f16 elements): 16 words in 16 banks
    assert count_wavefronts(2 * LANES, 2) == (1, 1)


def _ldmatrix_rows(swizzled: bool) -> np.ndarray:
    """ldmatrix.x4 on a row-major 128x64 f16 tile (128-byte rows): lanes 8i..8i+7
    give the rows of matrix i -- rows 0-7 / 8-15 at 16-byte unit 0 / 1."""
    row = LANES % 8 + 8 * ((LANES // 8) % 2)
    unit = LANES // 16
    if swizzled:
        unit = unit ^ (row % 8)
    return 128 * row + 16 * unit


def test_ldmatrix_on_an_unswizzled_tile_is_8_way_conflicted():
    assert count_wavefronts(_ldmatrix_rows(swizzled=False), 16) == (4 * 8, 4)
    assert count_wavefronts(_ldmatrix_rows(swizzled=False)[:8], 16) == (8, 1)


def test_ldmatrix_on_an_xor_swizzled_tile_is_conflict_free():
    assert count_wavefronts(_ldmatrix_rows(swizzled=True), 16) == (4, 4)
    assert count_wavefronts(_ldmatrix_rows(swizzled=True)[:8], 16) == (1, 1)


def test_8_byte_accesses_are_served_per_half_warp():
    assert count_wavefronts(8 * LANES, 8) == (2, 2)
    # lanes 16-31 repeat the words of lanes 0-15: a broadcast within a warp-wide
    # phase, but two separate half-warp phases of 16-way conflicts
    repeated = 128 * (LANES % 16)
    assert count_wavefronts(repeated, 8) == (2 * 16, 2)
    assert count_wavefronts(repeated, 4) == (16, 1)


def test_16_byte_accesses_are_served_per_quarter_warp():
    assert count_wavefronts(16 * LANES, 16) == (4, 4)
    # rows 16 bytes apart: conflict free within 8 lanes whatever the others do
    assert count_wavefronts(16 * (LANES % 8) + 4096 * (LANES // 8), 16) == (4, 4)


def test_wider_accesses_are_split_in_16_byte_pieces():
    # each piece: 8 lanes 32 bytes apart cover 256 bytes, two words per bank
    assert count_wavefronts(32 * LANES, 32) == (2 * 4 * 2, 2 * 4)


def test_inactive_threads_and_empty_phases_cost_nothing():
    mask = LANES < 4
    starts = np.where(mask, 128 * LANES, 12345)
    assert count_wavefronts(starts, 16, mask) == (4, 1)
    assert count_wavefronts(starts, 4, np.zeros(32, bool)) == (0, 0)
    # threads of two warps are never in one phase
    assert count_wavefronts(np.zeros(64, np.int64), 4) == (2, 2)


def test_unaligned_accesses_touch_every_word_they_cover():
    # 8 lanes, 16 bytes from byte 2: five words each, 33 distinct ones (words 0-32)
    assert count_wavefronts(2 + 16 * LANES[:8], 16) == (2, 2)


def test_the_counter_accumulates_per_op():
    counter = BankCounter()
    counter.record("nvgpu.ldmatrix", _ldmatrix_rows(False), 16, np.ones(32, bool))
    counter.record("nvgpu.ldmatrix", _ldmatrix_rows(True), 16, np.ones(32, bool))
    counter.record("memref.load", 4 * LANES, 4, np.ones(32, bool))
    summary = counter.summary()
    assert summary == {"memref.load": (1, 1), "nvgpu.ldmatrix": (32 + 4, 8)}
    assert total_wavefronts(summary) == (37, 9)


# ---------------------------------------------------------------------- the GEMM

# The reduced GEMM (one 128x128 block, K = 256: 4 k tiles of 64, 4 warps of 64x64)
# lowered with the CUDA flow for sm_80 at num_stages 2.  Per warp and k tile, 4 k
# steps of 4 ldmatrix.x4 (A, 4 phases each) and 8 ldmatrix.x2.trans (B, 2 phases
# each): 4 * 4 * 4 * (16 + 16) = 2048 phases.  cp.async fills A_s (128x64 f16) and
# B_s (64x128 f16) in 16-byte chunks, consecutive threads on consecutive chunks:
# 2 * 16 KiB / 128 bytes = 256 phases per k tile, 1024 in all, conflict free.
ASYNC_COPY = (1024, 1024)
# Unswizzled, 8 rows at one column are 128 (A_s) or 256 (B_s) bytes apart: one bank
# group, 8 wavefronts per phase.  XOR-swizzled (16-byte unit ^ row % 8): 1 per phase.
LDMATRIX = {False: (8 * 2048, 2048), True: (2048, 2048)}


def _lower(num_stages: int = 2, swizzle_shared: bool = True):
    module = parse_kernel(REDUCED_GEMM.replace("NUM_STAGES", str(num_stages)), "kernel.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        pass_class = get_all_passes()[name]()
        if name == "lower-to-nvvm":
            pass_class(swizzle_shared=swizzle_shared).apply(ctx, module)
        else:
            pass_class().apply(ctx, module)
    return module


def _run(module, **options) -> NvvmRun:
    return run_nvvm_kernel(module, [A, B, np.zeros((128, 128), np.float32)], **options)


def _check_counts(run: NvvmRun, swizzled: bool) -> None:
    np.testing.assert_allclose(run.outputs[2], EXACT, atol=1e-4)
    assert run.shared_wavefronts == {
        "nvgpu.device_async_copy": ASYNC_COPY,
        "nvgpu.ldmatrix": LDMATRIX[swizzled],
    }
    wavefronts, ideal = run.shared_wavefront_totals
    assert (wavefronts, ideal) == (ASYNC_COPY[0] + LDMATRIX[swizzled][0], 1024 + 2048)


def test_the_swizzled_gemm_reads_shared_memory_without_bank_conflicts():
    """``lower-to-nvvm`` swizzles the tiles ldmatrix reads by default: every phase
    one wavefront, and the permutation keeps the kernel correct and race free."""
    run = _run(_lower(), count_bank_conflicts=True, check_races=True)
    assert run.races == []
    _check_counts(run, swizzled=True)


def test_without_the_swizzle_ldmatrix_is_8_way_conflicted():
    """``lower-to-nvvm{swizzle_shared=false}``: rows 128 or 256 bytes apart share a
    bank group -- 8 wavefronts per ldmatrix phase."""
    _check_counts(_run(_lower(swizzle_shared=False), count_bank_conflicts=True), swizzled=False)


def test_counting_is_off_by_default():
    off = _run(_lower())
    assert off.shared_wavefronts == {} and off.shared_wavefront_totals == (0, 0)
    assert NvvmRun([], []).shared_wavefronts == {}
