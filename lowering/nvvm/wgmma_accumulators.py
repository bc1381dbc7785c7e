"""wgmma's accumulators as the ``!llvm.struct`` of f32 its instructions take and
return (``accumulator_struct``), gathered from and scattered to the fragment's
registers: once around a gemm (``wgmma.py``), or around the loop that carries them
(``wgmma_in_flight.py``)."""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, f32, i64
from xdsl.ir import SSAValue

from tilepipe.dialects.llvm_upstream import PoisonOp
from tilepipe.dialects.nvvm_wgmma import accumulator_struct
from tilepipe.lowering.nvvm import emit
from tilepipe.lowering.nvvm.access import TileOperand


def load_struct(c: TileOperand, registers: list[int]) -> SSAValue:
    """The struct of ``registers`` of the accumulator ``c``, in order."""
    value = PoisonOp.build(result_types=[accumulator_struct(2 * len(registers))]).res
    for field, register in enumerate(registers):
        element = emit.load(c.buffer, [emit.const(register)])
        value = llvm.InsertValueOp(DenseArrayBase.from_list(i64, [field]), value, element).res
    return value


def store_struct(value: SSAValue, c: TileOperand, registers: list[int]) -> None:
    """Write the struct's fields back to ``registers`` of ``c``."""
    for field, register in enumerate(registers):
        element = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [field]), value, f32).res
        emit.store(element, c.buffer, [emit.const(register)])
