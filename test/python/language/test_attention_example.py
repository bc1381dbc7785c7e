"""examples/python/flash_attention.py: TileLang's online-softmax attention
(reduce_max with clear=False, exp2 rescaling through T.Parallel, P cast to f16 in
a fragment, two gemms, T.Pipelined(num_stages=2)) through the full flow.

On sm_80 it must equal numpy and be race free after scheduling; on sm_90a the
frontend's IR must qualify for what examples/flash_attention_sm90a.mlir shows --
warp specialization and P·V's wgmma with A = P's registers -- and still be race free
and equal to numpy.  The T.Parallel bodies must not hold a fragment temporary per
sub-expression: the kernel stays under the register file (no spill warning)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "python" / "flash_attention.py"
_spec = importlib.util.spec_from_file_location("tl_example_flash_attention", EXAMPLE)
fa = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fa)

# wgmma's register-A form: the accumulator list, then A as four .b32 registers.
REGISTER_A = re.compile(r"wgmma\.mma_async\S* \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd")


def run(kernel, heads=1, seq_len=128, dim=64):
    q, k, v = fa.inputs(heads, seq_len, dim, seed=11)
    out = kernel(q, k, v, check_races=True)  # RaceError on a race in the scheduled kernel
    np.testing.assert_allclose(out, fa.reference(q, k, v), rtol=1e-3, atol=3e-4)


def test_sm80_race_free_equal_to_numpy_and_shaped_like_the_mlir_example():
    kernel = tilepipe.compile(fa.flash_attention(1, 128, 64), out_idx=[-1], target="sm_80")
    run(kernel)
    ir = kernel.mlir()
    assert ir.count("tile.gemm<64x64x64>") == 2 and "transpose_b" in ir
    assert re.search(r"tile\.cast<64x64> %acc_s -> %acc_s_cast : .*f32, \"fragment\"> -> "
                     r"memref<64x64xf16, \"fragment\">", ir)
    assert "tile.reduce<64x64> max" in ir and "tile.reduce<64x64> sum" in ir
    assert "num_stages = 2" in ir
    assert "ptxas will spill" not in kernel.summary, kernel.summary
    # temporaries are reused: at most three 64x64 f32 ones besides the user's buffers
    assert len(re.findall(r"%tmp\w* = memref.alloc\(\) : memref<64x64xf32", ir)) <= 3


def test_sm90a_warp_specialized_with_p_from_registers():
    kernel = tilepipe.compile(fa.flash_attention(1, 128, 64), out_idx=[-1], target="sm_90a")
    assert "producer warpgroup" in kernel.summary
    ptx = kernel.get_kernel_source()
    assert len(REGISTER_A.findall(ptx)) == 4  # P·V: four k-steps from P's registers
    assert "ptxas will spill" not in kernel.summary
    run(kernel)


def test_two_heads_and_smaller_query_blocks():
    """Two heads (the grid's y, Q[by, rows, :] a 3-D region) and 32-row query blocks
    against 64-row K/V blocks (S is 32x64, P·V a 32x64x64 gemm)."""
    kernel = tilepipe.compile(fa.flash_attention(2, 128, 64, block_M=32), out_idx=[-1])
    q, k, v = fa.inputs(2, 128, 64, seed=4)
    np.testing.assert_allclose(kernel(q, k, v), fa.reference(q, k, v), rtol=1e-3, atol=3e-4)


def test_slice_bounds_that_do_not_cancel_are_a_located_error():
    """`bx * 64:(bx + 1) * 64` has the compile-time extent 64; `bx * 64:bx * 128` has
    none, and says how to write it."""
    @T.prim_func
    def main(A: T.Tensor((256, 64), "float32"), B: T.Tensor((256, 64), "float32")):
        with T.Kernel(4, threads=128) as bx:
            A_f = T.alloc_fragment((64, 64), "float32")
            T.copy(A[(bx + 1) * 64 - 64:(bx + 1) * 64, :], A_f)
            T.copy(A_f, B[bx * 64:bx * 128, :])  # <no-extent>

    line = next(n for n, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if text.rstrip().endswith("# <no-extent>"))
    with pytest.raises(tilepipe.CompileError) as info:
        main.build("sm_80")
    assert f"{Path(__file__).resolve()}:{line}:" in str(info.value.diagnostics[0])
    assert "A[i:i + n]" in str(info.value.diagnostics[0])
