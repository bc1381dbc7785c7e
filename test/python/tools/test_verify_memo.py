"""A module is verified again whenever it changed since it last verified (and only
then), and a kernel text run many times is parsed once: both only save time, so each
test checks that no edit slips past the verifier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i32

from tilepipe.core import diagnostics, verify_memo
from tilepipe.core.source import parse_source
from tilepipe.core.verify_memo import verify_module_if_changed
from tilepipe.semantics import KernelError, load_module, run_tile_kernel
from tilepipe.semantics.tile import grid_runner

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

KERNEL = """
func.func @k(%a: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : i32
  memref.store %c7, %a[%c0] : memref<4xi32>
  func.return
}
"""


@pytest.fixture
def verifications(monkeypatch):
    """How many times the memo's verifier ran."""
    calls = []
    real = verify_memo.verify_module

    def counting(module):
        calls.append(module)
        return real(module)

    monkeypatch.setattr(verify_memo, "verify_module", counting)
    return calls


def test_an_unchanged_module_verifies_once(verifications):
    module = parse_source((EXAMPLES / "gemm.mlir").read_text(), "gemm.mlir")
    for _ in range(3):
        assert verify_module_if_changed(module) is None
    assert len(verifications) == 1
    assert verify_module_if_changed(module.clone()) is None  # another module
    assert len(verifications) == 2


def _constant(module, value):
    return next(
        op for op in module.walk()
        if isinstance(op, arith.ConstantOp) and getattr(op.value, "value", None) is not None
        and op.value.value.data == value
    )


def test_an_edited_attribute_is_verified_and_rejected(verifications):
    module = parse_source(KERNEL, "k.mlir")
    assert verify_module_if_changed(module) is None
    # A constant whose value no longer matches its result type.
    _constant(module, 7).properties["value"] = IntegerAttr(7, 64)
    diagnostic = verify_module_if_changed(module)
    assert diagnostic is not None and len(verifications) == 2
    # Still wrong the next time it is asked: a failure is never remembered as verified.
    assert verify_module_if_changed(module) is not None
    assert len(verifications) == 3


def test_an_edited_function_attribute_is_verified(verifications):
    module = parse_source(KERNEL, "k.mlir")
    assert verify_module_if_changed(module) is None
    func = next(op for op in module.walk() if op.name == "func.func")
    func.attributes["tile.target"] = StringAttr("sm_1000")
    assert verify_module_if_changed(module) is not None
    assert "sm_1000" in str(diagnostics.verify_module(module))


def test_an_erased_op_and_a_replaced_operand_are_verified(verifications):
    module = parse_source(KERNEL, "k.mlir")
    assert verify_module_if_changed(module) is None
    seven = _constant(module, 7)
    store = next(op for op in module.walk() if op.name == "memref.store")
    index_zero = store.indices[0]
    # The stored value becomes an index: the store no longer type-checks.
    store.operands[0] = index_zero
    assert verify_module_if_changed(module) is not None
    # Put back, it is the module that verified: nothing to check again.
    store.operands[0] = seven.result
    assert verify_module_if_changed(module) is None
    assert len(verifications) == 2
    seven.detach()
    seven.erase(safe_erase=False)
    # The store now uses a value defined nowhere: the module changed, so it verifies.
    verify_module_if_changed(module)
    assert len(verifications) == 3


def test_a_moved_op_is_verified(verifications):
    module = parse_source(KERNEL, "k.mlir")
    assert verify_module_if_changed(module) is None
    store = next(op for op in module.walk() if op.name == "memref.store")
    seven = _constant(module, 7)
    # The store before the definition of the value it stores: same ops, same operands,
    # another order.
    store.detach()
    seven.parent.insert_op_before(store, seven)
    verify_module_if_changed(module)
    assert len(verifications) == 2


def test_the_interpreter_rejects_a_module_edited_between_runs():
    module = load_module(KERNEL)
    assert run_tile_kernel(module, inputs={"a": np.zeros(4, np.int32)})["a"][0] == 7
    _constant(module, 7).properties["value"] = IntegerAttr(7, 64)
    with pytest.raises(KernelError):
        run_tile_kernel(module, inputs={"a": np.zeros(4, np.int32)})


def test_a_text_run_many_times_is_parsed_once(monkeypatch):
    parses = []
    real = grid_runner.load_module
    monkeypatch.setattr(
        grid_runner, "load_module", lambda m, f="<input>": parses.append(f) or real(m, f)
    )
    text = KERNEL.replace("arith.constant 7", "arith.constant 11")
    for _ in range(3):
        assert run_tile_kernel(text, inputs={"a": np.zeros(4, np.int32)})["a"][0] == 11
    assert len(parses) == 1
    # The text is the key: another constant is another kernel.
    other = KERNEL.replace("arith.constant 7", "arith.constant 12")
    assert run_tile_kernel(other, inputs={"a": np.zeros(4, np.int32)})["a"][0] == 12
    assert len(parses) == 2


def test_the_module_handed_out_is_never_the_shared_parse():
    text = KERNEL.replace("arith.constant 7", "arith.constant 13")
    run_tile_kernel(text, inputs={"a": np.zeros(4, np.int32)})
    mine = load_module(text)
    _constant(mine, 13).properties["value"] = IntegerAttr(14, i32)
    # Editing what load_module returned does not change what the text runs.
    assert run_tile_kernel(text, inputs={"a": np.zeros(4, np.int32)})["a"][0] == 13
