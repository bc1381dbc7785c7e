"""Helpers called in a kernel are inlined: ``@T.macro`` statements, and plain
functions handed buffers (TileLang's ``make_dq_layout(dQ)``); what they emit is
located at the helper's own lines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tilepipe
import tilepipe.language as T

HERE = str(Path(__file__).resolve())


@T.macro
def load_scaled(src, dst, row, scale):
    T.copy(src[row, 0], dst)
    for i, j in T.Parallel(*dst.shape):
        dst[i, j] = dst[i, j] * scale


def row_layout(buffer):
    return T.Layout(buffer.shape, lambda i, j: [i, j])


def bad_helper(dst):
    T.copy(dst, dst[0:3, :])  # <bad-helper>


def kernel(helper_line_error=False):
    @T.prim_func
    def main(A: T.Tensor((32, 16), "float32"), B: T.Tensor((32, 16), "float32")):
        with T.Kernel(2, threads=128) as bx:
            a = T.alloc_fragment((16, 16), "float32")
            T.annotate_layout({a: row_layout(a)})
            load_scaled(A, a, bx * 16, 3.0)
            if helper_line_error:
                bad_helper(a)
            T.copy(a, B[bx * 16, 0])

    return main


def test_macro_statements_are_inlined_and_run():
    compiled = tilepipe.compile(kernel(), out_idx=[-1])
    x = np.arange(512, dtype=np.float32).reshape(32, 16)
    np.testing.assert_array_equal(compiled(x, check_races=True), x * 3)


def test_ops_a_macro_emits_carry_the_macros_lines():
    module = kernel().build("sm_80")
    lines = {op.location.line.data for op in module.walk() if op.name == "tile.mul"}  # type: ignore[union-attr]
    body = Path(HERE).read_text().splitlines()
    assert [body[n - 1].strip() for n in lines] == ["dst[i, j] = dst[i, j] * scale"]


def test_an_error_in_a_helper_names_the_helpers_line():
    with pytest.raises(T.LanguageError) as info:
        kernel(helper_line_error=True).build("sm_80")
    line = next(n for n, text in enumerate(Path(HERE).read_text().splitlines(), 1)
                if text.rstrip().endswith("# <bad-helper>"))
    assert str(info.value.diagnostics[0]).startswith(f"{HERE}:{line}:")


def test_a_recursive_helper_is_an_error_not_a_hang():
    def forever(buf):
        return forever(buf)

    @T.prim_func
    def main(A: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_fragment((16,), "float32")
            forever(a)

    with pytest.raises(T.LanguageError, match="inlines itself"):
        main.build("sm_80")
