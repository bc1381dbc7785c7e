"""The machine code of the lowered GEMM stays lean, as structural facts
only -- no timing: the steady-state loop of the example GEMM's PTX has no 64-bit
multiply (the version slots are rotating counters) and a 32-bit exit test (the
k-loop counts in i32), both operands load with
``ldmatrix.x4``, ptxas reports no spills and registers to spare; the SASS loop
that ``bench/bench_sass.py`` measures issues exactly the kernel's HMMA, LDSM, LDGSTS
and one barrier.  And the rotated slots keep every pipelined kernel exact and
race-free in the per-thread NVVM interpreter, for short trip counts too."""

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from tilepipe.core.flows import FLOWS
from tilepipe.drivers.compile import compile_kernel, make_context, parse_kernel
from tilepipe.lowering.nvvm.ptxas import CudaToolNotFound, disassemble, find_nvdisasm, run_ptxas
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

GEMM = (ROOT / "examples" / "gemm.mlir").read_text()
SIXTY_FOUR_BIT_MULTIPLY = re.compile(r"^\s*(mul|mad)\.(lo|hi)\.[su]64\b", re.M)


def _steady_loop(ptx: str) -> str:
    """The PTX of the loop whose body issues both cp.async and mma.sync."""
    for match in re.finditer(r"^(\$L__BB\d+_\d+):$", ptx, re.M):
        label = match.group(1)
        back_edge = ptx.find(f"bra \t{label};", match.end())
        if back_edge < 0:
            continue
        body = ptx[match.end() : back_edge]
        if "cp.async.cg" in body and "mma.sync" in body:
            return body
    raise AssertionError("no steady-state loop in the PTX")


def _ptx(num_stages: int) -> str:
    result = compile_kernel(GEMM, "gemm.mlir", "sm_80", num_stages=num_stages, run_ptxas=False)
    assert result.ptx is not None
    return result.ptx


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_example_gemm_steady_loop_has_no_64_bit_multiply_and_no_spills(num_stages):
    ptx = _ptx(num_stages)
    loop = _steady_loop(ptx)
    assert not SIXTY_FOUR_BIT_MULTIPLY.findall(loop)
    assert not re.search(r"\b(div|rem)\.", loop)
    assert re.search(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans", loop)
    # The k-loop counts in i32: its exit test is one 32-bit compare, not a pair.
    assert re.search(r"setp\.\w+\.[bsu]32\b", loop)
    assert not re.search(r"setp\.\w+\.[bsu]64\b", loop)
    assert not re.search(r"ldmatrix\.sync\.aligned\.m8n8\.x[12]\b", ptx)
    try:
        (report,) = run_ptxas(ptx, "sm_80")
    except CudaToolNotFound:
        pytest.skip("ptxas is not installed")
    assert report.spill_store_bytes == report.spill_load_bytes == 0
    assert report.registers < 255  # headroom below the ceiling


def _bench_sass():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_sass
    finally:
        sys.path.pop(0)
    return bench_sass


CP_ASYNC_SOURCE = re.compile(r"cp\.async\.cg\.shared\.global \[[^\]]*\], \[(%rd\d+)(?:\+-?\d+)?\]")


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
def test_block_k32_gemm_copies_from_one_base_per_operand_and_iteration(num_stages):
    """The steady loop's cp.async read ``[base + constant]`` from two bases (A, B),
    each a wide multiply of the 32-bit loop counter added to a loop-invariant address
    (``mul.wide`` + ``add.s64``: one IMAD.WIDE in SASS), and no 64-bit register is
    stepped from one iteration to the next: a pointer recurrence costs an add with
    carry per operand (and a copy by ptxas where LDGSTS reads it), and its rounds
    64-bit adds, LDGSTS folding only +-2 KiB (``nvvm_induction``)."""
    text = _bench_sass()._gemm_block_k32()
    result = compile_kernel(text, "gemm.mlir", "sm_80", num_stages=num_stages, run_ptxas=False)
    assert result.ptx is not None
    loop = _steady_loop(result.ptx)
    sources = CP_ASYNC_SOURCE.findall(loop)
    assert len(sources) == 8 and len(set(sources)) == 2
    for base in set(sources):
        add = re.search(rf"add\.s64 \t{re.escape(base)}, (%rd\d+), (%rd\d+);", loop)
        assert add is not None, base
        assert any(
            re.search(rf"mul\.wide\.[su]32 \t{re.escape(term)}, %r\d+, \d+;", loop)
            for term in add.groups()
        ), add[0]
    assert not re.search(r"add\.s64 \t(%rd\d+), \1, ", loop)


def test_sass_steady_loop_issues_the_gemm_and_one_barrier(tmp_path):
    try:
        find_nvdisasm()
    except CudaToolNotFound:
        pytest.skip("nvdisasm is not installed (the ptx extra)")
    bench_sass = _bench_sass()
    cubin = tmp_path / "gemm.cubin"
    run_ptxas(_ptx(3), "sm_80", cubin)
    count = bench_sass.steady_state_count(disassemble(cubin), 128)
    # 4 warps of 64x64 over 4 k-steps: 4 x 8 x 4 mma; A 4 x4 + B 4 x4.trans per
    # k-step; 128x64 + 64x128 f16 in 16-byte cp.async over 128 threads.
    assert count.inner_trips is None  # LLVM unrolled the k-steps and copy rounds
    assert count.classes["HMMA"] == 128
    assert count.classes["LDSM"] == 32
    assert count.classes["LDGSTS"] == 16
    assert count.classes["BAR"] == 1


# A 64x64 block over K = 32 * trips: the steady state exists from trips >= num_stages.
SMALL_GEMM = """
func.func @gemm(%A: memref<64xKDIMxf16>, %B: memref<KDIMx64xf16>, %C: memref<64x64xf32>)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %trips = arith.constant TRIPS : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %ko = %c0 to %trips step %c1 num_stages = NUM_STAGES {
    %k0 = arith.muli %ko, %c32 : index
    tile.copy<64x32> %A[%c0, %k0] -> %A_s : memref<64xKDIMxf16> -> memref<64x32xf16, "shared">
    tile.copy<32x64> %B[%k0, %c0] -> %B_s : memref<KDIMx64xf16> -> memref<32x64xf16, "shared">
    tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
"""


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4])
@pytest.mark.parametrize("trips", [1, 2, 3, 5])
def test_rotated_slots_keep_the_pipelined_gemm_exact_and_race_free(num_stages, trips):
    k = 32 * trips
    text = (
        SMALL_GEMM.replace("KDIM", str(k))
        .replace("TRIPS", str(trips))
        .replace("NUM_STAGES", str(num_stages))
    )
    module = parse_kernel(text, "gemm.mlir")
    ctx = make_context()
    for name in FLOWS["cuda"].passes:
        get_all_passes()[name]()().apply(ctx, module)
    if 1 < num_stages <= trips:  # a steady state: its slots are loop-carried counters
        assert "iter_args" in str(module)
    if num_stages < trips:  # ... whose copies read the counter through the opaque move
        assert "llvm.inline_asm" in str(module)
    rng = np.random.default_rng(trips)
    a = rng.uniform(-1, 1, (64, k)).astype(np.float16)
    b = rng.uniform(-1, 1, (k, 64)).astype(np.float16)
    run = run_nvvm_kernel(module, [a, b, np.zeros((64, 64), np.float32)], check_races=True)
    assert run.races == []
    exact = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(run.outputs[2], exact, atol=1e-3)


# 4 warps over 64x48 are 2x2 warps of 32x24: three 8-column B blocks per warp, one
# ldmatrix.x4 for the first two and an .x2 for the third.
ODD_BLOCKS_GEMM = """
func.func @gemm(%A: memref<64x32xf16>, %B: memref<B_SHAPExf16>, %C: memref<64x48xf32>)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<B_SHAPExf16, "shared">
  %C_f = memref.alloc() : memref<64x48xf32, "fragment">
  tile.fill<64x48> %zero -> %C_f : f32 -> memref<64x48xf32, "fragment">
  tile.copy<64x32> %A -> %A_s : memref<64x32xf16> -> memref<64x32xf16, "shared">
  tile.copy<B_TILE> %B -> %B_s : memref<B_SHAPExf16> -> memref<B_SHAPExf16, "shared">
  pipeline.barrier
  tile.gemm<64x48x32> %A_s, %B_s -> %C_f TRANSPOSE : memref<64x32xf16, "shared">, memref<B_SHAPExf16, "shared"> -> memref<64x48xf32, "fragment">
  tile.copy<64x48> %C_f -> %C : memref<64x48xf32, "fragment"> -> memref<64x48xf32>
  func.return
}
"""


@pytest.mark.parametrize("transpose_b", [False, True])
def test_an_odd_number_of_b_blocks_loads_the_last_with_x2(transpose_b):
    shape, tile = ("48x32", "48x32") if transpose_b else ("32x48", "32x48")
    text = (
        ODD_BLOCKS_GEMM.replace("B_SHAPE", shape)
        .replace("B_TILE", tile)
        .replace("TRANSPOSE", "transpose_b" if transpose_b else "")
    )
    module = parse_kernel(text, "gemm.mlir")
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), module)
    printed = str(module)
    # The k-step loop's body (LLVM unrolls it): 2 A loads, 2 B loads.
    assert printed.count('"nvgpu.ldmatrix"') == 2 + 2
    assert printed.count("numTiles = 2 : i32") == 1  # the third B block
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (48, 32) if transpose_b else (32, 48)).astype(np.float16)
    run = run_nvvm_kernel(module, [a, b, np.zeros((64, 48), np.float32)], check_races=True)
    assert run.races == []
    product = a.astype(np.float32) @ (b.T if transpose_b else b).astype(np.float32)
    np.testing.assert_allclose(run.outputs[2], product, atol=1e-3)
