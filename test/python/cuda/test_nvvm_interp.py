"""The target-level IR runs, thread by thread, in the NVVM interpreter: lowered kernels
(ldmatrix/mma.sync fragments per the PTX ISA, cp.async groups, barriers, mbarriers)
compute what the tile-level kernels compute, and the per-thread race detector sees
the barriers thread-sync inserted -- and their absence."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, i64

from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import make_context, parse_kernel
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import run_tile_kernel
from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel

# The chapter's GEMM reduced to one 128x128 block with K = 256 (four k tiles).
REDUCED_GEMM = """
func.func @gemm(%A: memref<128x256xf16>, %B: memref<256x128xf16>, %C: memref<128x128xf32>)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  pipeline.for %ko = %c0 to %c4 step %c1 num_stages = NUM_STAGES {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<128x64> %A[%c0, %k0] -> %A_s : memref<128x256xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %c0] -> %B_s : memref<256x128xf16> -> memref<64x128xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.copy<128x128> %C_f -> %C : memref<128x128xf32, "fragment"> -> memref<128x128xf32>
  func.return
}
"""

RNG = np.random.default_rng(7)
A = RNG.uniform(-1, 1, (128, 256)).astype(np.float16)
B = RNG.uniform(-1, 1, (256, 128)).astype(np.float16)
EXACT = A.astype(np.float32) @ B.astype(np.float32)


def lowered(text: str, passes=("lower-to-nvvm",)):
    module = parse_kernel(text, "kernel.mlir")
    ctx = make_context()
    for name in passes:
        get_all_passes()[name]()().apply(ctx, module)
    return module


def test_lowered_gemm_matches_the_tile_level_run():
    text = REDUCED_GEMM.replace("NUM_STAGES", "1")
    tile = run_tile_kernel(text, inputs={"A": A, "B": B, "C": np.zeros((128, 128), np.float32)})
    run = run_nvvm_kernel(lowered(text), [A, B, np.zeros((128, 128), np.float32)])
    np.testing.assert_allclose(run.outputs[2], tile["C"], atol=1e-4)
    np.testing.assert_allclose(run.outputs[2], EXACT, atol=1e-4)


@pytest.mark.parametrize(
    "target, num_stages",
    [("sm_80", 1), ("sm_80", 2), ("sm_80", 3), ("sm_80", 4), ("sm_90", 2), ("sm_90", 3)],
)
def test_pipelined_gemm_is_correct_and_race_free_per_thread(target, num_stages):
    """sm_80: cp.async groups and barriers; sm_90: bulk copies and mbarrier parities."""
    missing = [p for p in FLOWS["cuda"].passes if p not in get_all_passes()]
    if missing:
        pytest.skip(f"not registered yet: {', '.join(missing)}")
    text = REDUCED_GEMM.replace("NUM_STAGES", str(num_stages))
    module = lowered(text.replace('"sm_80"', f'"{target}"'), FLOWS["cuda"].passes)
    run = run_nvvm_kernel(module, [A, B, np.zeros((128, 128), np.float32)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], EXACT, atol=1e-4)


def test_the_race_detector_fires_without_the_barriers():
    """Tile level lowered as is: nothing orders the copies and the gemm."""
    module = lowered(REDUCED_GEMM.replace("NUM_STAGES", "1"))
    run = run_nvvm_kernel(module, [A, B, np.zeros((128, 128), np.float32)], check_races=True)
    assert any("'nvgpu.ldmatrix'" in r and "'vector.store' at kernel.mlir:15:5" in r for r in run.races)
    assert any("vector.store" in r and "writes what another thread read" in r for r in run.races)


def test_dropping_the_wait_leaves_copies_in_flight():
    if "thread-sync" not in get_all_passes():
        pytest.skip("thread-sync is not registered yet")
    module = lowered(REDUCED_GEMM.replace("NUM_STAGES", "2"), FLOWS["cuda"].passes)
    for op in list(module.walk()):
        if op.name == "nvvm.cp.async.wait.group":
            op.detach()
            op.erase()
    with pytest.raises(NvvmExecutionError, match="never waited for"):
        run_nvvm_kernel(module, [A, B, np.zeros((128, 128), np.float32)])



def test_a_false_vector_alignment_claim_is_an_error():
    """The lowering's vector accesses claim an alignment (16 bytes for the mma
    accumulators, 8 for the register pairs it stores out); the interpreter holds it
    to the claim, as the hardware would: doubling every claim must fail."""
    module = lowered(REDUCED_GEMM.replace("NUM_STAGES", "1"))
    claims = [op for op in module.walk() if op.name in ("vector.load", "vector.store")]
    assert {op.properties["alignment"].value.data for op in claims} >= {8, 16}
    run = run_nvvm_kernel(module, [A, B, np.zeros((128, 128), np.float32)])
    np.testing.assert_allclose(run.outputs[2], EXACT, atol=1e-4)
    for op in claims:
        claim = op.properties["alignment"]
        op.properties["alignment"] = type(claim)(claim.value.data * 2, claim.type)
    with pytest.raises(NvvmExecutionError, match="is not (16|32)-byte aligned"):
        run_nvvm_kernel(module, [A, B, np.zeros((128, 128), np.float32)])

def test_windows_and_the_opaque_counter_run_as_modelled_and_nothing_else():
    """The pipelined copies read their global tiles through ``memref.subview``
    windows, and the k-loop's body its counter through an inline-PTX move
    (``nvvm_induction``).  The interpreter runs both as what they are and refuses
    what it does not model: a window leaving its array, any other inline PTX."""
    module = lowered(REDUCED_GEMM.replace("NUM_STAGES", "2"), FLOWS["cuda"].passes)
    windows = [op for op in module.walk() if op.name == "memref.subview"]
    (move,) = [op for op in module.walk() if op.name == "llvm.inline_asm"]
    assert windows
    args = [A, B, np.zeros((128, 128), np.float32)]
    run = run_nvvm_kernel(module, args, check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], EXACT, atol=1e-4)

    move.properties["asm_string"] = StringAttr("add.s32 $0, $1, 1;")
    with pytest.raises(NvvmExecutionError, match="PTX the interpreter does not model"):
        run_nvvm_kernel(module, args)
    move.properties["asm_string"] = StringAttr("mov.b32 $0, $1;")
    windows[0].properties["static_sizes"] = DenseArrayBase.from_list(i64, [256, 256])
    with pytest.raises(NvvmExecutionError, match="leaves a dimension of size"):
        run_nvvm_kernel(module, args)


TRANSPOSED_GEMM = """
func.func @gemm_t(%At: memref<32x64xf16>, %Bt: memref<64x32xf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<32x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.copy<32x64> %At -> %A_s : memref<32x64xf16> -> memref<32x64xf16, "shared">
  tile.copy<64x32> %Bt -> %B_s : memref<64x32xf16> -> memref<64x32xf16, "shared">
  pipeline.barrier
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f transpose_a transpose_b : memref<32x64xf16, "shared">, memref<64x32xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
"""


def test_transposed_operands_use_the_right_ldmatrix_flavours():
    at = RNG.uniform(-1, 1, (32, 64)).astype(np.float16)
    bt = RNG.uniform(-1, 1, (64, 32)).astype(np.float16)
    run = run_nvvm_kernel(
        lowered(TRANSPOSED_GEMM), [at, bt, np.zeros((64, 64), np.float32)], check_races=True
    )
    assert run.races == []
    expected = at.T.astype(np.float32) @ bt.T.astype(np.float32)
    np.testing.assert_allclose(run.outputs[2], expected, atol=1e-4)


ELEMENTWISE = """
func.func @softmax_rows(%X: memref<32x64xf32>, %M: memref<32xf32>, %Y: memref<32x64xf16>)
    attributes {tile.threads = 64 : i64, tile.target = "sm_80"} {
  %x = memref.alloc() : memref<32x64xf32, "shared">
  %m = memref.alloc() : memref<32xf32, "shared">
  %e = memref.alloc() : memref<32x64xf32, "fragment">
  %y = memref.alloc() : memref<32x64xf16, "shared">
  tile.copy<32x64> %X -> %x : memref<32x64xf32> -> memref<32x64xf32, "shared">
  pipeline.barrier
  tile.reduce<32x64> max %x -> %m axis 1 : memref<32x64xf32, "shared"> -> memref<32xf32, "shared">
  tile.copy<32> %m -> %M : memref<32xf32, "shared"> -> memref<32xf32>
  tile.exp<32x64> %x -> %e : memref<32x64xf32, "shared"> -> memref<32x64xf32, "fragment">
  tile.add<32x64> %e, %e -> %e : memref<32x64xf32, "fragment">, memref<32x64xf32, "fragment"> -> memref<32x64xf32, "fragment">
  tile.cast<32x64> %e -> %y : memref<32x64xf32, "fragment"> -> memref<32x64xf16, "shared">
  pipeline.barrier
  tile.copy<32x64> %y -> %Y : memref<32x64xf16, "shared"> -> memref<32x64xf16>
  func.return
}
"""


def test_fill_elementwise_reduce_match_the_tile_level_run():
    x = RNG.uniform(-2, 2, (32, 64)).astype(np.float32)
    inputs = {"X": x, "M": np.zeros(32, np.float32), "Y": np.zeros((32, 64), np.float16)}
    tile = run_tile_kernel(ELEMENTWISE, inputs=inputs)
    run = run_nvvm_kernel(lowered(ELEMENTWISE), list(inputs.values()), check_races=True)
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], tile["M"])
    np.testing.assert_allclose(run.outputs[2].astype(np.float32), tile["Y"].astype(np.float32), rtol=1e-3)


MBARRIERS = """
func.func @mbarriers() attributes {tile.threads = 64 : i64, tile.target = "TARGET"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.barrier
  pipeline.mbarrier_arrive %bars[%c0] : memref<1xi64, "shared">
  pipeline.mbarrier_test_wait %bars[%c0], %c0 : memref<1xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %cPARITY : memref<1xi64, "shared">
  func.return
}
"""


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_mbarrier_phases(target):
    """Thread 0's arrival completes phase 0; waiting for it returns, waiting for the
    phase after it (parity 1) can never return."""
    done = MBARRIERS.replace("TARGET", target).replace("%cPARITY", "%c0")
    run_nvvm_kernel(lowered(done), [])
    stuck = MBARRIERS.replace("TARGET", target).replace("%cPARITY", "%c1")
    with pytest.raises(NvvmExecutionError, match="deadlock|did not terminate"):
        run_nvvm_kernel(lowered(stuck), [])


FRAGMENT_REDUCTIONS = """
func.func @row_reductions(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %M: memref<64xf32>,
                          %X: memref<32x16xf32>, %S: memref<32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %m = memref.alloc() : memref<64xf32, "shared">
  %x = memref.alloc() : memref<32x16xf32, "fragment">
  %s = memref.alloc() : memref<32xf32, "shared">
  tile.copy<64x32> %A -> %A_s : memref<64x32xf16> -> memref<64x32xf16, "shared">
  tile.copy<32x64> %B -> %B_s : memref<32x64xf16> -> memref<32x64xf16, "shared">
  pipeline.barrier
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.reduce<64x64> max %C_f -> %m axis 1 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
  tile.copy<32x16> %X -> %x : memref<32x16xf32> -> memref<32x16xf32, "fragment">
  tile.reduce<32x16> sum %x -> %s axis 1 : memref<32x16xf32, "fragment"> -> memref<32xf32, "shared">
  pipeline.barrier
  tile.copy<64> %m -> %M : memref<64xf32, "shared"> -> memref<64xf32>
  tile.copy<32> %s -> %S : memref<32xf32, "shared"> -> memref<32xf32>
  func.return
}
"""


def test_warp_shuffle_row_reductions_match_the_tile_level_run():
    """The scores-then-row-max step of attention: rows of an mma accumulator and of a
    cooperative fragment, reduced with shfl.sync butterflies."""
    inputs = {
        "A": RNG.uniform(-1, 1, (64, 32)).astype(np.float16),
        "B": RNG.uniform(-1, 1, (32, 64)).astype(np.float16),
        "M": np.zeros(64, np.float32),
        "X": RNG.uniform(-1, 1, (32, 16)).astype(np.float32),
        "S": np.zeros(32, np.float32),
    }
    tile = run_tile_kernel(FRAGMENT_REDUCTIONS, inputs=inputs)
    run = run_nvvm_kernel(lowered(FRAGMENT_REDUCTIONS), list(inputs.values()), check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], tile["M"], atol=1e-5)
    np.testing.assert_allclose(run.outputs[4], tile["S"], atol=1e-5)


def test_gemm_epilogue_is_race_free_per_thread():
    """The cast out of the accumulator runs in the mma fragment layout and the copy
    in 16-byte chunks: thread-sync must not take them for the same thread mapping
    (ElementMapping makes ops touching registers follow the fragment's layout)."""
    missing = [p for p in FLOWS["cuda"].passes if p not in get_all_passes()]
    if missing:
        pytest.skip(f"not registered yet: {', '.join(missing)}")
    text = (Path(__file__).parents[3] / "examples" / "gemm_epilogue.mlir").read_text()
    text = text.replace("array<i64: 8, 8>", "array<i64: 1, 1>")
    text = text.replace("%c16 = arith.constant 16", "%c16 = arith.constant 4")
    text = text.replace("memref<1024x1024xf16>", "memref<256x256xf16>")
    a = RNG.uniform(-1, 1, (256, 256)).astype(np.float16)
    b = RNG.uniform(-1, 1, (256, 256)).astype(np.float16)
    run = run_nvvm_kernel(
        lowered(text, FLOWS["cuda"].passes), [a, b, np.zeros((256, 256), np.float16)], check_races=True
    )
    assert run.races == []


BULK_COPY = """
func.func @bulk(%A: memref<256x256xf16>, %C: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<2x64x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.fence_proxy_async
  pipeline.barrier
  pipeline.bulk_copy<64x64> %A[%c64, %c64] -> %A_s[%c0, %c0, %c0], %bars[%c0] : memref<256x256xf16> -> memref<2x64x64xf16, "shared">, memref<2xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<2xi64, "shared">
  WAIT
  tile.copy<64x64> %A_s[%c0, %c0, %c0] -> %C : memref<2x64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}
"""
PARITY_WAIT = 'pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">'


def test_bulk_copies_complete_on_the_mbarrier():
    a = RNG.uniform(-1, 1, (256, 256)).astype(np.float16)
    run = run_nvvm_kernel(
        lowered(BULK_COPY.replace("WAIT", PARITY_WAIT)),
        [a, np.zeros((64, 64), np.float16)],
        check_races=True,
    )
    assert run.races == []
    np.testing.assert_array_equal(run.outputs[1], a[64:128, 64:128])
    unordered = run_nvvm_kernel(
        lowered(BULK_COPY.replace("WAIT", "")), [a, np.zeros((64, 64), np.float16)],
        check_races=True,
    )
    assert any("cp.async.bulk" in race for race in unordered.races)


# bf16 on tensor cores: nvgpu.ldmatrix fragments packed into i32 registers for
# nvvm.mma.sync (m16n8k16.row.col.f32.bf16.bf16.f32); one 64x64 block, K = 32.
BF16_GEMM = """
func.func @gemm_bf16(%A: memref<64x32xbf16>, %B: memref<32x64xbf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xbf16, "shared">
  %B_s = memref.alloc() : memref<32x64xbf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.copy<64x32> %A -> %A_s : memref<64x32xbf16> -> memref<64x32xbf16, "shared">
  tile.copy<32x64> %B -> %B_s : memref<32x64xbf16> -> memref<32x64xbf16, "shared">
  pipeline.barrier
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xbf16, "shared">, memref<32x64xbf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
"""


def _bf16(values: np.ndarray) -> np.ndarray:
    """f32 values rounded to bf16 (how the interpreters hold bf16)."""
    from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits

    return bf16_bits_to_f32(round_f32_to_bf16_bits(values.astype(np.float32)))


def test_bf16_gemm_runs_on_tensor_cores_and_matches_the_tile_level_run():
    a = _bf16(RNG.uniform(-1, 1, (64, 32)))
    b = _bf16(RNG.uniform(-1, 1, (32, 64)))
    module = lowered(BF16_GEMM)
    names = {op.name for op in module.walk()}
    assert {"nvgpu.ldmatrix", "nvvm.mma.sync", "llvm.bitcast"} <= names
    assert "nvgpu.mma.sync" not in names
    tile = run_tile_kernel(BF16_GEMM, inputs={"A": a, "B": b, "C": np.zeros((64, 64), np.float32)})
    run = run_nvvm_kernel(module, [a, b, np.zeros((64, 64), np.float32)], check_races=True)
    assert run.races == []
    # bf16 products are exact in f32; only the f32 summation order differs.
    np.testing.assert_allclose(run.outputs[2], tile["C"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run.outputs[2], a.astype(np.float64) @ b, atol=1e-4)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_pipelined_bf16_gemm_is_correct_and_race_free_per_thread(target):
    """The reduced chapter GEMM in bf16 through the whole CUDA flow (cp.async groups on
    sm_80, bulk copies of the 2-byte elements on sm_90) at num_stages 2."""
    missing = [p for p in FLOWS["cuda"].passes if p not in get_all_passes()]
    if missing:
        pytest.skip(f"not registered yet: {', '.join(missing)}")
    text = REDUCED_GEMM.replace("NUM_STAGES", "2").replace("xf16", "xbf16")
    module = lowered(text.replace('"sm_80"', f'"{target}"'), FLOWS["cuda"].passes)
    assert any(op.name == "nvvm.mma.sync" for op in module.walk())
    a, b = _bf16(A.astype(np.float32)), _bf16(B.astype(np.float32))
    run = run_nvvm_kernel(module, [a, b, np.zeros((128, 128), np.float32)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], a.astype(np.float64) @ b, atol=1e-4)


def test_transposed_bf16_operands_pack_the_right_registers():
    at = _bf16(RNG.uniform(-1, 1, (32, 64)))
    bt = _bf16(RNG.uniform(-1, 1, (64, 32)))
    text = TRANSPOSED_GEMM.replace("xf16", "xbf16")
    run = run_nvvm_kernel(lowered(text), [at, bt, np.zeros((64, 64), np.float32)], check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], at.T.astype(np.float64) @ bt.T, atol=1e-4)


DERIVED_ROW_SUM = """
func.func @derived_rows(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %M: memref<64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %E_f = memref.alloc() : memref<64x64xf32, "fragment">
  %m = memref.alloc() : memref<64xf32, "shared">
  tile.copy<64x32> %A -> %A_s : memref<64x32xf16> -> memref<64x32xf16, "shared">
  tile.copy<32x64> %B -> %B_s : memref<32x64xf16> -> memref<32x64xf16, "shared">
  pipeline.barrier
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.exp<64x64> %C_f -> %E_f : memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  tile.reduce<64x64> sum %E_f -> %m axis 1 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
  pipeline.barrier
  tile.copy<64> %m -> %M : memref<64xf32, "shared"> -> memref<64xf32>
  func.return
}
"""


def test_a_fragment_derived_from_the_accumulator_is_reduced_by_rows():
    """P = exp(S) takes S's mma layout; because P is reduced along rows, S's warps
    get whole rows (4x1), so the row sums stay inside one warp (quad shuffles)."""
    a = RNG.uniform(-0.5, 0.5, (64, 32)).astype(np.float16)
    b = RNG.uniform(-0.5, 0.5, (32, 64)).astype(np.float16)
    inputs = {"A": a, "B": b, "M": np.zeros(64, np.float32)}
    tile = run_tile_kernel(DERIVED_ROW_SUM, inputs=inputs)
    run = run_nvvm_kernel(lowered(DERIVED_ROW_SUM), list(inputs.values()), check_races=True)
    assert run.races == []
    np.testing.assert_allclose(run.outputs[2], tile["M"], rtol=1e-5)


def test_zero_extension_reads_the_bits_as_unsigned():
    """``arith.extui`` (a wgmma descriptor's low word widened to i64): -1 as i32 is
    2^32 - 1 as i64, where ``arith.extsi`` keeps -1."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import i32
    from xdsl.ir import Block

    from tilepipe.semantics.nvvm.execution import HANDLERS

    block = Block(arg_types=[i32])
    values = {block.args[0]: np.array([-1, 7], np.int32)}

    class Values:
        def __getitem__(self, value):
            return values[value]

    for op, want in ((arith.ExtUIOp(block.args[0], i64), 2**32 - 1), (arith.ExtSIOp(block.args[0], i64), -1)):
        (result,) = HANDLERS[op.name](Values(), op, np.ones(2, bool))
        assert result.dtype == np.int64 and result.tolist() == [want, 7]
