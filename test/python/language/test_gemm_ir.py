"""The Python GEMM builds the IR of examples/gemm.mlir.

Both go through ``canonicalize,cse``; then the constants at the top of the
function are sorted (the frontend makes a constant where it is first used,
gemm.mlir lists them by hand), the function gets one name (TileLang calls its
kernels ``main``), value names are dropped and the two print identically --
op for op, operand for operand, attribute for attribute.
"""

from __future__ import annotations

from pathlib import Path

import tilepipe
from xdsl.dialects.builtin import StringAttr

from kernels import gemm

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm.mlir"


def normalized(module) -> str:
    module = tilepipe.run_pipeline(module, "canonicalize,cse")
    func = module.body.block.first_op
    func.sym_name = StringAttr("kernel")
    block = func.body.block
    constants = [op for op in block.ops if op.name == "arith.constant"]
    for op in constants:
        op.detach()
    for op in sorted(constants, key=lambda c: str(c.value), reverse=True):
        block.insert_op_before(op, block.first_op)  # reversed: ends up ascending
    for op in module.walk():
        for value in [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]:
            value.name_hint = None
    return str(module)


def test_python_gemm_equals_gemm_mlir():
    ours = gemm(1024, 1024, 1024).build("sm_80")
    theirs = tilepipe.parse(EXAMPLE.read_text(), name=str(EXAMPLE))
    assert normalized(ours) == normalized(theirs)


def test_other_options_differ():
    """The comparison can fail: another num_stages is another kernel."""
    theirs = tilepipe.parse(EXAMPLE.read_text())
    assert normalized(gemm(1024, 1024, 1024, num_stages=2).build("sm_80")) != normalized(theirs)
