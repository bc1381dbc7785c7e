"""ptxas accepts the PTX of the CUDA Python examples (examples/python/*.py): the
frontend's IR goes through the whole CUDA flow, and NVIDIA's assembler -- not only
upstream MLIR's PTX printer -- takes the result, on sm_80 and, for flash attention's
warp-specialized register-A kernel, sm_90a.  Skipped without the CUDA wheel's ptxas."""

from __future__ import annotations

import re

import pytest

import tilepipe
from test_examples import load

KERNELS = {
    "gemm": lambda m: m.matmul(256, 256, 256),
    "gemm_epilogue": lambda m: m.gemm_bias_relu(128, 256, 256),
    "elementwise_add": lambda m: m.elementwise_add(64, 128),
    "row_softmax": lambda m: m.row_softmax(64, 64),
    "flash_attention": lambda m: m.flash_attention(1, 256, 64),
}


@pytest.mark.parametrize("name, target", [
    *((name, "sm_80") for name in KERNELS), ("flash_attention", "sm_90a"),
])
def test_ptxas_accepts_the_example(ptxas_available, name, target):
    kernel = tilepipe.compile(KERNELS[name](load(name)), out_idx=[-1], target=target,
                              run_ptxas=True)
    assert re.search(r"^\s*ptxas\s+[\d.]+ ms\s+accepted$", kernel.summary, re.M), kernel.summary
    assert re.search(rf"kernel @\w+: \d+ registers.*\({target}\)", kernel.summary)
