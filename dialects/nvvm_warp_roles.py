"""The warp-role ops of the ``nvvm`` subset (sm_90a), spelled as MLIR 22.1.8 spells
them (``dialects/nvvm.py`` re-exports them):

* ``nvvm.setmaxregister increase|decrease N`` -- ``setmaxnreg.inc|dec.sync.aligned.u32
  N``: the executing warpgroup's per-thread register budget becomes N (24 to 256, a
  multiple of 8).  A warp-specialized kernel gives its producer warpgroup few
  registers and its consumers many (docs/nvvm.md, "Warp specialization");
* ``nvvm.elect.sync`` -- ``elect.sync``: true in exactly one active lane of the warp
  (the lowest), the single thread that issues a producer's tensor copies.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i1, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, prop_def, result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

MIN_REGISTERS, MAX_REGISTERS, REGISTER_STEP = 24, 256, 8


class SetMaxRegisterAction(StrEnum):
    INCREASE = "increase"
    DECREASE = "decrease"


@irdl_attr_definition
class SetMaxRegisterActionAttr(EnumAttribute[SetMaxRegisterAction], SpacedOpaqueSyntaxAttribute):
    """``#nvvm<action increase>``"""

    name = "nvvm.action"


@irdl_op_definition
class SetMaxRegisterOp(IRDLOperation):
    """``nvvm.setmaxregister increase 232`` (the action and the count are properties:
    ``action = #nvvm<action increase>, regCount = 232 : i32`` in the generic form)."""

    name = "nvvm.setmaxregister"
    action = prop_def(SetMaxRegisterActionAttr)
    regCount = prop_def(IntegerAttr)

    def __init__(self, action: str, registers: int):
        super().__init__(
            properties={
                "action": SetMaxRegisterActionAttr(SetMaxRegisterAction(action)),
                "regCount": IntegerAttr(registers, i32),
            }
        )

    @property
    def increases(self) -> bool:
        return self.action.data is SetMaxRegisterAction.INCREASE

    @property
    def action_name(self) -> str:
        return self.action.data.value

    @property
    def registers(self) -> int:
        return self.regCount.value.data

    def verify_(self) -> None:
        count = self.registers
        if not (MIN_REGISTERS <= count <= MAX_REGISTERS and count % REGISTER_STEP == 0):
            raise VerifyException(
                f"the register count must be a multiple of {REGISTER_STEP} in "
                f"[{MIN_REGISTERS}, {MAX_REGISTERS}], got {count}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.action_name} {self.registers}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SetMaxRegisterOp:
        action = parser.parse_str_enum(SetMaxRegisterAction)
        count = parser.parse_integer()
        op = cls(action, count)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class ElectSyncOp(IRDLOperation):
    """``%leader = nvvm.elect.sync -> i1``: one active lane of each warp."""

    name = "nvvm.elect.sync"
    res = result_def(i1)
    assembly_format = "attr-dict `->` type($res)"

    def __init__(self):
        super().__init__(result_types=[i1])


WARP_ROLE_OPS: list[type[IRDLOperation]] = [SetMaxRegisterOp, ElectSyncOp]
WARP_ROLE_ATTRIBUTES: list[type[Attribute]] = [SetMaxRegisterActionAttr]
