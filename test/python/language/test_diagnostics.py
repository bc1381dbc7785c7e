"""Every error class names the user's Python file and line: the frontend's own
errors, the verifier's, pipeline-validate's, the shared-memory budget's and the
race detector's."""

from __future__ import annotations

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T
from tilepipe.dialects.pipeline_sync import BarrierOp
from tilepipe.semantics import find_races

import kernels
from kernels import FILE, line_of


def error_of(build) -> str:
    with pytest.raises(tilepipe.CompileError) as info:
        build()
    (diagnostic,) = info.value.diagnostics[:1]
    return str(diagnostic)


@pytest.mark.parametrize("factory, marker, words", [
    (kernels.bad_gemm_shapes, "bad-gemm", "shape mismatch"),
    (kernels.bad_copy_shapes, "bad-copy", "shape mismatch"),
    (kernels.bad_while, "while", "T.serial"),
    (kernels.data_dependent_if, "data-if", "comparisons of buffers"),
    (kernels.unknown_call, "atomic", "T.atomic_max is not supported by tilepipe"),
])
def test_frontend_errors_at_the_python_line(factory, marker, words):
    text = error_of(lambda: tilepipe.compile(factory()))
    assert text.startswith(f"{FILE}:{line_of(marker)}:"), text
    assert words in text


def test_language_error_is_a_compile_error():
    with pytest.raises(T.LanguageError):
        kernels.bad_while().build()


def test_verifier_error_at_the_gemm_line():
    # An f16 accumulator passes the frontend's shape checks; tile.gemm's verifier rejects it.
    text = error_of(lambda: kernels.gemm(128, 128, 128, accum_dtype="float16").build())
    assert text.startswith(f"{FILE}:{line_of('gemm')}:"), text
    assert "accumulates in f32" in text


def test_pipeline_validate_error_at_the_loop_line():
    func = kernels.gemm(128, 128, 128, num_stages=0, order=[0, 0, 1], stage=[0, 0, 1])
    text = error_of(lambda: tilepipe.compile(func))
    assert text.startswith(f"{FILE}:{line_of('pipelined')}:"), text
    assert "same order" in text


def test_budget_error_names_the_python_lines():
    func = kernels.gemm(512, 512, 512, block_M=256, block_N=256, block_K=128, num_stages=4)
    with pytest.raises(tilepipe.CompileError) as info:
        tilepipe.compile(func)
    text = str(info.value)
    assert text.startswith(f"{FILE}:{line_of('gemm-def')}:"), text
    assert "exceeds the sm_80 budget" in text and "A_shared 4 x 65536 B" in text, text


def test_race_report_names_the_python_lines():
    kernel = tilepipe.compile(kernels.gemm(128, 128, 256), out_idx=[-1])
    scheduled = kernel.scheduled()
    barriers = [op for op in scheduled.walk() if isinstance(op, BarrierOp)]
    assert barriers
    barriers[0].detach()
    barriers[0].erase()
    rng = np.random.default_rng(0)
    inputs = {"A": rng.uniform(-1, 1, (128, 256)).astype(np.float16),
              "B": rng.uniform(-1, 1, (256, 128)).astype(np.float16),
              "C": np.zeros((128, 128), np.float32)}
    races = find_races(scheduled, inputs=inputs)
    assert races
    report = "\n".join(str(r) for r in races)
    assert f"{FILE}:" in report, report
    lines = {line_of(m) for m in ("copy-a", "gemm", "pipelined")}
    assert any(f"{FILE}:{n}:" in report for n in lines), report
