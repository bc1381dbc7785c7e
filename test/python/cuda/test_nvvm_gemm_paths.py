"""Every ``tile.gemm`` the tile level accepts lowers (lowering/nvvm/gemm.py): on
tensor cores over as many warps as its 16x8 blocks allow (the others idle), with the
K tail past the last whole 16-wide step on the scalar path, or wholly on the scalar
path (f16/bf16 summed one 16-wide K step at a time, the tile level's order) where the
tile has no whole 16x8 blocks or ldmatrix cannot read an operand.  Each kernel runs
per thread in the NVVM interpreter, race free and bit-exact against the tile level.

The regression: test/regressions/Inputs/gemm_warp_grid.mlir (an independent fuzzer, sm_80):
a 16x16x32 f16 gemm in a 4-warp block, which no grid of 4 warps tiles in 16x8 blocks,
had no lowering at all.
"""

import numpy as np
import pytest
from pipeline_helpers import apply_passes
from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType

from conftest import ROOT
from tilepipe.drivers.compile import compile_kernel, make_context
from tilepipe.core.registry import get_all_passes
from tilepipe.semantics import run_tile_kernel, select_kernel
from tilepipe.semantics.numerics import matmul_f32
from tilepipe.semantics.nvvm.interp import run_nvvm_kernel
from tilepipe.core.flows import FLOWS
from tilepipe.semantics.tile.grid_runner import random_array

CUDA = FLOWS["cuda"].spec("scheduled")
WARP_GRID = (ROOT / "test" / "regressions" / "Inputs" / "gemm_warp_grid.mlir").read_text()


def _lowered(module):
    lowered = module.clone()
    get_all_passes()["lower-to-nvvm"]()().apply(make_context(), lowered)
    return lowered


def _run_both(text: str, index_args=None, seed: int = 5, compiled=None):
    """(tile-level outputs, NVVM run, lowered module) of ``text`` after the CUDA flow,
    on the same random inputs; ``compiled``: the (module, lowered) of an earlier call,
    to run the same compile at other index arguments."""
    module, lowered = compiled or _compile(text)
    rng = np.random.default_rng(seed)
    func = select_kernel(module, None)
    index_args = index_args or {}
    inputs, args = {}, []
    for arg in func.body.block.args:
        if isinstance(arg.type, MemRefType):
            inputs[arg.name_hint] = random_array(arg.type, rng)
            args.append(inputs[arg.name_hint])
        else:
            args.append(np.int64(index_args[arg.name_hint]))
    expected = run_tile_kernel(
        text, inputs={k: v.copy() for k, v in inputs.items()}, index_args=index_args
    )
    run = run_nvvm_kernel(lowered, args, check_races=True)
    return inputs, expected, run, lowered


def _compile(text: str):
    module = apply_passes(text, CUDA)
    return module, _lowered(module)


def _under_if(op) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, scf.IfOp):
        parent = parent.parent_op()
    return parent is not None


def _assert_bit_exact(inputs, expected, run) -> None:
    assert run.races == []
    for position, name in enumerate(inputs):
        np.testing.assert_array_equal(
            np.asarray(run.outputs[position]), np.asarray(expected[name]), err_msg=f"%{name}"
        )


@pytest.mark.parametrize("target, trips", [("sm_80", (0, 1, 3)), ("sm_90", (1, 3))])
def test_warp_grid_regression_runs_on_two_of_four_warps(target, trips):
    text = WARP_GRID.replace('tile.target = "sm_80"', f'tile.target = "{target}"')
    compiled = _compile(text)
    for n in trips:
        inputs, expected, run, lowered = _run_both(text, {"n": n}, compiled=compiled)
        mmas = [op for op in lowered.walk() if op.name == "nvgpu.mma.sync"]
        assert mmas and all(_under_if(op) for op in mmas)
        _assert_bit_exact(inputs, expected, run)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_warp_grid_regression_compiles_to_ptx(target, ptxas_available):
    text = WARP_GRID.replace('tile.target = "sm_80"', f'tile.target = "{target}"')
    (report,) = compile_kernel(text, "gemm_warp_grid.mlir", target).ptxas
    assert report.kernel == "kern"


GEMM = """
func.func @gemm(%A: memref<AROWSxACOLSxT>, %B: memref<BROWSxBCOLSxT>, %C: memref<MxNxf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = THREADS : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %half = arith.constant 5.000000e-01 : f32
  %Sa = memref.alloc() : memref<AROWSxACOLSxT, "shared">
  %Sb = memref.alloc() : memref<BROWSxBCOLSxT, "shared">
  %Acc = memref.alloc() : memref<MxNxf32, "fragment">
  tile.fill<MxN> %half -> %Acc : f32 -> memref<MxNxf32, "fragment">
  tile.copy<AROWSxACOLS> %A -> %Sa : memref<AROWSxACOLSxT> -> memref<AROWSxACOLSxT, "shared">
  tile.copy<BROWSxBCOLS> %B -> %Sb : memref<BROWSxBCOLSxT> -> memref<BROWSxBCOLSxT, "shared">
  tile.gemm<MxNxK> %Sa, %Sb -> %AccMODS : memref<AROWSxACOLSxT, "shared">, memref<BROWSxBCOLSxT, "shared"> -> memref<MxNxf32, "fragment">
  tile.copy<MxN> %Acc -> %C : memref<MxNxf32, "fragment"> -> memref<MxNxf32>
  func.return
}
"""


def gemm_text(m, n, k, dtype, threads=128, transpose_a=False, transpose_b=False) -> str:
    a = (k, m) if transpose_a else (m, k)
    b = (n, k) if transpose_b else (k, n)
    mods = (" transpose_a" if transpose_a else "") + (" transpose_b" if transpose_b else "")
    text = GEMM
    for key, value in (
        ("AROWS", a[0]), ("ACOLS", a[1]), ("BROWS", b[0]), ("BCOLS", b[1]),
        ("MODS", mods), ("THREADS", threads), ("xT", f"x{dtype}"),
        ("MxNxK", f"{m}x{n}x{k}"), ("MxN", f"{m}x{n}"),
    ):
        text = text.replace(key, str(value))
    return text


# (m, n, k, dtype, threads, transposes, mma.sync ops: the 16x8 blocks of one warp)
CASES = [
    (16, 16, 32, "f16", 128, (False, False), 1),  # 2 of 4 warps
    (16, 8, 16, "bf16", 256, (False, True), 1),  # 1 of 8 warps
    (32, 32, 24, "f16", 128, (False, False), 2),  # K tail of 8 on the scalar path
    (32, 16, 40, "bf16", 64, (True, False), 2),  # K tail of 8, A transposed
    (16, 16, 8, "f16", 128, (False, False), 0),  # K below one step: scalar, mma layout
    (24, 8, 16, "f16", 128, (False, False), 0),  # no whole 16-row blocks: scalar
    (5, 7, 20, "bf16", 64, (True, True), 0),  # odd everything
    (16, 8, 12, "f16", 32, (False, True), 0),  # rows of 24 bytes: no ldmatrix
    (12, 9, 7, "f32", 96, (False, False), 0),  # f32: one K at a time, as before
    (7, 1, 20, "f16", 32, (True, False), 0),  # one column: the K step summed in order
]


@pytest.mark.parametrize("m, n, k, dtype, threads, transposes, mmas", CASES)
def test_gemm_lowers_and_matches_the_tile_level(m, n, k, dtype, threads, transposes, mmas):
    text = gemm_text(m, n, k, dtype, threads, *transposes)
    inputs, expected, run, lowered = _run_both(text)
    names = [op.name for op in lowered.walk()]
    assert names.count("nvgpu.mma.sync") + names.count("nvvm.mma.sync") == mmas, text
    _assert_bit_exact(inputs, expected, run)


def test_idle_warps_skip_the_mma():
    """16x8 in 8 warps: one warp owns the tile; the mma sits under ``warp < 1``."""
    _, _, _, lowered = _run_both(gemm_text(16, 8, 16, "f16", 256))
    (mma,) = [op for op in lowered.walk() if op.name == "nvgpu.mma.sync"]
    assert _under_if(mma)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("case", [CASES[2], CASES[6]], ids=["k_tail", "odd"])
def test_new_gemm_paths_compile_to_ptx(case, target, ptxas_available):
    m, n, k, dtype, threads, transposes, _ = case
    text = gemm_text(m, n, k, dtype, threads, *transposes)
    text = text.replace('tile.target = "sm_80"', f'tile.target = "{target}"')
    (report,) = compile_kernel(text, "gemm.mlir", target).ptxas
    assert report.kernel == "gemm"


@pytest.mark.parametrize("m, n, k", [(16, 8, 16), (5, 9, 7), (16, 1, 16), (3, 1, 5), (1, 1, 16)])
def test_a_k_step_sums_from_zero_in_ascending_k(m, n, k):
    """The tile level's K step (numerics.matmul_f32) is the scalar path's loop: from
    zero, one rounded product at a time.  einsum alone sums a one-column B (contiguous
    along K) with SIMD partial sums, which no per-thread loop reproduces."""
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    a = rng.standard_normal((m, k)).astype(np.float16).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float16).astype(np.float32)
    total = np.zeros((m, n), np.float32)
    for kk in range(k):
        total = total + np.multiply.outer(a[:, kk], b[kk]).astype(np.float32)
    np.testing.assert_array_equal(matmul_f32(a, b), total)
