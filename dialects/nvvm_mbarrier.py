"""The mbarrier ops of the ``nvvm`` subset (``dialects/nvvm.py`` re-exports them and
states the spelling rules they follow: MLIR 22.1.8's operand and property names)."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType, i1, i32, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.upstream_syntax import reads_custom_form



@reads_custom_form
@irdl_op_definition
class MBarrierInitOp(IRDLOperation):
    """``mbarrier.init.shared.b64 [addr], count``."""

    name = "nvvm.mbarrier.init"
    addr = operand_def(LLVMPointerType)
    count = operand_def(i32)
    predicate = opt_operand_def(i1)
    assembly_format = (
        "$addr `,` $count (`,` `predicate` `=` $predicate^)? attr-dict `:` type(operands)"
    )

    def __init__(self, addr: SSAValue | Operation, count: SSAValue | Operation):
        super().__init__(operands=[addr, count, []])


@reads_custom_form
@irdl_op_definition
class MBarrierArriveOp(IRDLOperation):
    """``mbarrier.arrive.shared.b64 state, [addr]``; the result is the phase state."""

    name = "nvvm.mbarrier.arrive"
    addr = operand_def(LLVMPointerType)
    count = opt_operand_def(i32)
    res = result_def(i64)
    assembly_format = "$addr (`,` $count^)? attr-dict `:` type($addr) `->` type($res)"

    def __init__(self, addr: SSAValue | Operation):
        super().__init__(operands=[addr, []], result_types=[i64])


@reads_custom_form
@irdl_op_definition
class MBarrierArriveExpectTxOp(IRDLOperation):
    """``mbarrier.arrive.expect_tx``: arrive and expect ``txcount`` more bytes."""

    name = "nvvm.mbarrier.arrive.expect_tx"
    addr = operand_def(LLVMPointerType)
    txcount = operand_def(i32)
    predicate = opt_operand_def(i1)
    assembly_format = (
        "$addr `,` $txcount (`,` `predicate` `=` $predicate^)? attr-dict `:` type(operands)"
    )

    def __init__(self, addr: SSAValue | Operation, txcount: SSAValue | Operation):
        super().__init__(operands=[addr, txcount, []])


@reads_custom_form
@irdl_op_definition
class MBarrierCompleteTxOp(IRDLOperation):
    """``mbarrier.complete_tx`` (sm_90): complete ``txcount`` expected bytes without
    a copy -- the guarded path of a bulk copy at an array's edge, which copies its
    tile with plain loads and stores instead (``lowering/nvvm/boundary.py``)."""

    name = "nvvm.mbarrier.complete_tx"
    addr = operand_def(LLVMPointerType)
    txcount = operand_def(i32)
    assembly_format = "$addr `,` $txcount attr-dict `:` type(operands)"

    def __init__(self, addr: SSAValue | Operation, txcount: SSAValue | Operation):
        super().__init__(operands=[addr, txcount])


@reads_custom_form
@irdl_op_definition
class MBarrierTestWaitOp(IRDLOperation):
    """``mbarrier.test_wait`` (sm_80): has the phase of ``stateOrPhase`` completed?"""

    name = "nvvm.mbarrier.test.wait"
    addr = operand_def(LLVMPointerType)
    stateOrPhase = operand_def(IntegerType)
    res = result_def(i1)
    assembly_format = "$addr `,` $stateOrPhase attr-dict `:` type(operands) `->` type($res)"

    def __init__(self, addr: SSAValue | Operation, state: SSAValue | Operation):
        super().__init__(operands=[addr, state], result_types=[i1])

    def verify_(self) -> None:
        if self.stateOrPhase.type not in (i32, i64):
            raise VerifyException("stateOrPhase must be an i64 state or an i32 phase")


@reads_custom_form
@irdl_op_definition
class MBarrierTryWaitParityOp(IRDLOperation):
    """``mbarrier.try_wait.parity`` (sm_90+), looped until the phase completes."""

    name = "nvvm.mbarrier.try_wait.parity"
    addr = operand_def(LLVMPointerType)
    phase = operand_def(i32)
    ticks = operand_def(i32)
    assembly_format = "$addr `,` $phase `,` $ticks attr-dict `:` type(operands)"

    def __init__(
        self,
        addr: SSAValue | Operation,
        phase: SSAValue | Operation,
        ticks: SSAValue | Operation,
    ):
        super().__init__(operands=[addr, phase, ticks])


# --------------------------------------------------------------------------- warp


MBARRIER_OPS: list[type[IRDLOperation]] = [
    MBarrierInitOp,
    MBarrierArriveOp,
    MBarrierArriveExpectTxOp,
    MBarrierCompleteTxOp,
    MBarrierTestWaitOp,
    MBarrierTryWaitParityOp,
]
