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

from pipeline_helpers import deletions_not_noticed
from sweeps import long_mode, sample_size
from test_nvvm_gemm_paths import _assert_bit_exact, _run_both, gemm_text
from test_nvvm_tensor_maps import MAX_TRIPS, expected, gemm, lowered, operands, pipelined_gemm
from tilepipe.dialects.nvvm import WgmmaFenceAlignedOp
from conftest import ROOT
from test_nvvm_codegen import _bench_sass
from tilepipe.drivers.compile import compile_kernel
from tilepipe.lowering.nvvm.ptxas import CudaToolNotFound, disassemble, find_nvdisasm, run_ptxas
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


def test_a_gemm_wgmma_cannot_take_runs_on_mma_sync():
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


@pytest.mark.parametrize("stages", [2, 3, 4] if long_mode("TILEPIPE_MUTATION_SWEEP") else [3])
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
    flash = (ROOT / "examples" / "flash_attention.mlir").read_text()
    for text in (gemm(3), gemm(4, block_k=32), flash.replace('"sm_80"', '"sm_90a"')):
        (report,) = compile_kernel(text, "kernel.mlir", "sm_90a").ptxas
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


# ------------------------------------------------------------ random wgmma gemms

RANDOM_CASES = sample_size("TILEPIPE_WGMMA_SWEEP", quick=10, long=120)


def _random_case(rng: np.random.Generator):
    """A gemm of the surface wgmma takes, or just misses: M in 64-row slabs (now and
    then not), N any multiple of 8 up to 320, K-major operands of 32/64/128-byte rows
    or MN-major ones of 128-byte rows (64 columns) with K any multiple of 8, 1-3
    warpgroups."""
    dtype = str(rng.choice(["f16", "bf16"]))
    transpose_a, transpose_b = bool(rng.random() < 0.4), bool(rng.random() < 0.5)
    threads = int(rng.choice([128, 128, 256, 384]))
    m = int(rng.choice([64, 64, 128, 192, 48]))
    if transpose_a:  # A stored K x M: 128-byte rows are 64 columns of M
        m = 64
    n = 64 if not transpose_b else int(8 * rng.integers(1, 41))
    k_major_k = int(rng.choice([16, 32, 64]))
    k = k_major_k if not (transpose_a and not transpose_b) else int(8 * rng.integers(2, 9))
    return m, n, k, dtype, threads, transpose_a, transpose_b


@pytest.mark.parametrize("seed", range(RANDOM_CASES))
def test_random_wgmma_gemms_match_the_tile_level(seed):
    m, n, k, dtype, threads, ta, tb = _random_case(np.random.default_rng(7000 + seed))
    text = _on_sm90a(gemm_text(m, n, k, dtype, threads, ta, tb))
    inputs, tile_level, run, module = _run_both(text, seed=seed)
    if m % 64 == 0 and k >= 16:  # a descriptor addresses every such operand here
        assert _count(module, WGMMA) > 0, text
    _assert_bit_exact(inputs, tile_level, run)


# ------------------------------------------------------------------- the example

def test_the_sm90a_example_is_exact_on_one_block():
    """examples/gemm_sm90a.mlir (128x256x64 blocks, two warpgroups, 4 stages), its k
    loop cut to 5 trips: block (0, 0) equals the product, race free."""
    text = (ROOT / "examples" / "gemm_sm90a.mlir").read_text()
    text = text.replace("%c32 = arith.constant 32", "%c32 = arith.constant 5")
    module = lowered(text)
    assert _count(module, WGMMA) > 0 and _count(module, "nvgpu.mma.sync") == 0
    rng = np.random.default_rng(11)
    a = rng.uniform(-1, 1, (2048, 2048)).astype(np.float16)
    b = rng.uniform(-1, 1, (2048, 2048)).astype(np.float16)
    c = np.zeros((2048, 2048), np.float32)
    run = run_nvvm_kernel(module, [a, b, c], blocks=[(0, 0, 0)], check_races=True)
    assert run.races == []
    k = 5 * 64
    reference = a[:128, :k].astype(np.float32) @ b[:k, :256].astype(np.float32)
    np.testing.assert_allclose(run.outputs[2][:128, :256], reference, atol=1e-3)


def test_the_sm90a_steady_loops_issue_hgmma_only(tmp_path):
    """The SASS steady loop (bench/bench_sass.py) of the example GEMMs on sm_90a: the
    HGMMA per k-iteration the tiles need (128x128x64 over one warpgroup: 2 slabs x 4
    k-steps; 128x256x64 over two: 4 each), no HMMA or LDSM left, within registers."""
    try:
        find_nvdisasm()
    except CudaToolNotFound:
        pytest.skip("nvdisasm is not installed (the ptx extra)")
    bench_sass = _bench_sass()
    for name, hgmma in (("gemm.mlir", 8), ("gemm_sm90a.mlir", 4)):
        text = (ROOT / "examples" / name).read_text().replace('"sm_80"', '"sm_90a"')
        for specialized in (True, False):
            result = compile_kernel(
                text, name, "sm_90a", run_ptxas=False, warp_specialize=specialized
            )
            cubin = tmp_path / f"{name}.{specialized}.cubin"
            (report,) = run_ptxas(result.ptx, "sm_90a", cubin)
            sass = disassemble(cubin)
            assert "HMMA" not in sass.replace("HGMMA", "") and "LDSM" not in sass
            assert report.spill_store_bytes == 0
            if not specialized:  # one loop does both roles
                loop = bench_sass.steady_state_count(sass, hgmma, "HGMMA", bench_sass.hopper_class)
                assert loop.classes["HGMMA"] / loop.iterations == hgmma
                assert report.registers <= 168
                continue
            # The consumer loop issues the tiles' HGMMA; the producer's holds none;
            # the kernel's registers are the consumers' budget at most (setmaxnreg).
            consumer, producer = bench_sass.role_loops(sass)
            assert consumer.role == "consumer" and producer.role == "producer"
            assert consumer.classes["HGMMA"] % hgmma == 0 and producer.classes["HGMMA"] == 0
            assert "USETMAXREG" in sass and report.registers <= 240




@pytest.mark.parametrize("seed", range(max(1, RANDOM_CASES // 2)))
def test_random_pipelined_wgmma_gemms_behind_tensor_copies(seed):
    """Random block shapes, depths, warpgroups and ragged arrays (the boxes reach past
    the edges), a dynamic trip count: race free and equal to the product."""
    rng = np.random.default_rng(9000 + seed)
    bm, bn = int(rng.choice([64, 128])), int(rng.choice([64, 128, 256]))
    bk = int(rng.choice([16, 32, 64]))
    threads = int(rng.choice([128, 256])) if bm == 128 else 128
    stages, trips = int(rng.integers(1, 5)), int(rng.choice([0, 1, 2, 3, 5]))
    dtype = str(rng.choice(["f16", "bf16"]))
    # Ragged, but rows of whole 16 bytes (a tensor map's strides): N and K multiples
    # of 8 elements.
    m, n = bm - int(rng.integers(0, 24)), bn - 8 * int(rng.integers(0, 3))
    k = max(8, bk * max(trips, 1) - 8 * int(rng.integers(0, bk // 8)))
    text = pipelined_gemm(stages, bm, bn, bk, m, n, k, threads, dtype)
    module = lowered(text)
    assert _count(module, WGMMA) > 0, text
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    if dtype == "f16":
        a, b = a.astype(np.float16), b.astype(np.float16)
    run = run_nvvm_kernel(
        module, [a, b, np.zeros((m, n), np.float32), np.array(trips)], check_races=True
    )
    assert run.races == [], text
    wide_a, wide_b = np.asarray(run_inputs_as_f32(a, dtype)), np.asarray(run_inputs_as_f32(b, dtype))
    depth = min(k, bk * trips)
    reference = wide_a[:, :depth] @ wide_b[:depth]
    np.testing.assert_allclose(run.outputs[2], reference, atol=2e-3, rtol=0)


def run_inputs_as_f32(array: np.ndarray, dtype: str) -> np.ndarray:
    """The values a bf16 argument holds (the interpreter rounds f32 to bf16)."""
    if dtype == "bf16":
        from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits

        return bf16_bits_to_f32(round_f32_to_bf16_bits(array.astype(np.float32)))
    return array.astype(np.float32)


def test_no_wgmma_keeps_the_gemms_on_mma_sync():
    """compile_for(..., warpgroup_mma=False) (tilepipe compile --no-wgmma): the same
    kernel on mma.sync, its tensor-map copies kept, and the result the same."""
    from tilepipe.drivers.api import compile_for

    text = gemm(3)
    off = compile_for(text, "sm_90a", level="nvvm", warpgroup_mma=False).text
    assert "wgmma" not in off and "nvgpu.mma.sync" in off and "cp.async.bulk.tensor" in off
    on = compile_for(text, "sm_90a", level="nvvm").text
    assert "nvvm.wgmma.mma_async" in on and "nvgpu.mma.sync" not in on


@pytest.mark.parametrize("stages, trips", [(2, 17), (3, 0), (3, 1), (4, 2)])
def test_pipelined_wgmma_gemm_is_bit_exact_against_the_tile_level(stages, trips):
    """The TMA + wgmma GEMM and the tile level's run of the same kernel agree bit for
    bit (each k16 step rounds as the tile level's gemm_accumulate)."""
    inputs, tile_level, run, module = _run_both(gemm(stages), index_args={"n": trips})
    assert _count(module, WGMMA) > 0
    _assert_bit_exact(inputs, tile_level, run)
