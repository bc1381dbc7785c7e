"""Mixed targets (issue #31): a kernel written for one target family compiled for
the other is an error at the user's Python file and line, never a traceback or an
error about IR the user did not write.

* Ascend's scopes (T.alloc_L1, T.alloc_ub, alloc_shared(scope="L0A")) in a kernel
  compiled for a CUDA target: the frontend says so at the allocation.
* A CUDA kernel compiled for ascend910b: its shared and fragment buffers become UB,
  where the cube unit cannot read a gemm's operands; the verifier says so at the
  T.gemm line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T
from test_examples import EXAMPLES, load

FILE = str(Path(__file__).resolve())


def line_of(path: str, marker: str) -> int:
    for number, text in enumerate(Path(path).read_text().splitlines(), 1):
        if marker in text:
            return number
    raise KeyError(marker)


def error_of(func, target: str) -> str:
    with pytest.raises(tilepipe.CompileError) as info:
        tilepipe.compile(func, out_idx=[-1], target=target)
    return str(info.value.diagnostics[0])


def ascend_scope_kernel(alloc: str):
    @T.prim_func
    def main(A: T.Tensor((256,), "float16"), B: T.Tensor((256,), "float16")):
        with T.Kernel(1, threads=128) as bx:
            if alloc == "L1":
                a = T.alloc_L1((256,), "float16")  # <L1>
            elif alloc == "ub":
                a = T.alloc_ub((256,), "float16")  # <ub>
            else:
                a = T.alloc_shared((256,), "float16", scope="L0A")  # <L0A>
            T.copy(A[0], a)
            T.copy(a, B[0])

    return main


@pytest.mark.parametrize("alloc, what", [("L1", "T.alloc_L1"), ("ub", "T.alloc_ub"),
                                         ("L0A", "T.alloc_shared")])
@pytest.mark.parametrize("target", ["sm_80", "sm_90a"])
def test_ascend_scope_in_a_cuda_kernel_is_an_error_at_the_allocation(alloc, what, target):
    message = error_of(ascend_scope_kernel(alloc), target)
    assert message.startswith(f"{FILE}:{line_of(FILE, f'# <{alloc}>')}:")
    assert f"{what} allocates in Ascend's {alloc.upper()} buffer, which {target}" in message
    assert "T.alloc_shared, T.alloc_fragment or T.alloc_local" in message


def test_the_ascend_example_compiled_for_cuda_names_its_first_ub_allocation():
    path = str(EXAMPLES / "ascend_vadd.py")
    message = error_of(load("ascend_vadd").vadd(1024), "sm_80")
    assert message.startswith(f"{path}:{line_of(path, 'x_ub = T.alloc_ub')}:"), message
    assert "target=\"ascend910b\"" in message


def test_the_cuda_gemm_compiled_for_ascend_runs_on_the_cube():
    """tilelang-ascend's developer mode: the buffers the gemm reads go to L1, its
    accumulator to L0C; the same Python GEMM runs on the cube core."""
    kernel = tilepipe.compile(load("gemm").matmul(128, 128, 128), out_idx=[-1], target="ascend910b")
    assert "Mmad" in kernel.get_kernel_source()
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    b = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    np.testing.assert_allclose(kernel(a, b, check_races=True), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)


def test_a_gemm_of_ub_buffers_on_ascend_is_an_error_at_the_gemm_line():
    @T.prim_func
    def main(A: T.Tensor((64, 64), "float16"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_ub((64, 64), "float16")
            c = T.alloc_ub((64, 64), "float32")
            T.copy(A[0, 0], a)
            T.gemm(a, a, c)  # <ub-gemm>
            T.copy(c, C[0, 0])

    message = error_of(main, "ascend910b")
    assert message.startswith(f"{FILE}:{line_of(FILE, '# <ub-gemm>')}:"), message
    assert "tile.gemm" in message and "ub" in message