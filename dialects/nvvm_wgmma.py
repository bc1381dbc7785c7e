"""The warpgroup matrix-multiply ops of the ``nvvm`` subset (sm_90a), spelled as MLIR
22.1.8 spells them (``dialects/nvvm.py`` re-exports them):

* ``nvvm.wgmma.fence.aligned`` -- ``wgmma.fence.sync.aligned``: orders the
  warpgroup's register accesses before the ``wgmma.mma_async`` that follow;
* ``nvvm.wgmma.mma_async`` -- one ``wgmma.mma_async.sync.aligned.m64nNk16`` whose A
  and B are read from shared memory through 64-bit matrix descriptors, its
  accumulator an ``!llvm.struct`` of N/2 f32 per thread;
* ``nvvm.wgmma.commit.group.sync.aligned`` -- closes the warpgroup's pending
  ``wgmma`` into a group;
* ``nvvm.wgmma.wait.group.sync.aligned N`` -- waits until at most N groups are
  pending: only then may the accumulators be read and the shared operands be
  overwritten.

``mma_async`` has a hand-written custom form upstream; tilepipe prints (and reads)
its generic form, which upstream reads too.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, f32, i64
from xdsl.dialects.llvm import LLVMStructType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tilepipe.dialects.nvvm_attrs import MMALayout, MMALayoutAttr, MMAShapeAttr, _AngleEnum

WGMMA_M, WGMMA_K = 64, 16


class WgmmaType(StrEnum):
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"


@irdl_attr_definition
class WgmmaTypeAttr(_AngleEnum, EnumAttribute[WgmmaType]):
    """``#nvvm.wgmma_type<f16>``"""

    name = "nvvm.wgmma_type"


class WgmmaScaleIn(StrEnum):
    ONE = "one"
    NEG = "neg"


@irdl_attr_definition
class WgmmaScaleInAttr(_AngleEnum, EnumAttribute[WgmmaScaleIn]):
    """``#nvvm.wgmma_scale_in<one>``: A or B as they are (``neg``: negated)."""

    name = "nvvm.wgmma_scale_in"


class WgmmaScaleOut(StrEnum):
    ONE = "one"
    ZERO = "zero"


@irdl_attr_definition
class WgmmaScaleOutAttr(_AngleEnum, EnumAttribute[WgmmaScaleOut]):
    """``#nvvm.wgmma_scale_out<one>``: D = A B + D (``zero``: D = A B)."""

    name = "nvvm.wgmma_scale_out"


def accumulator_struct(n: int) -> LLVMStructType:
    """The f32 accumulator of one ``m64nNk16``: N/2 registers per thread."""
    return LLVMStructType.from_type_list([f32] * (n // 2))


@irdl_op_definition
class WgmmaFenceAlignedOp(IRDLOperation):
    name = "nvvm.wgmma.fence.aligned"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class WgmmaCommitGroupSyncAlignedOp(IRDLOperation):
    name = "nvvm.wgmma.commit.group.sync.aligned"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class WgmmaWaitGroupSyncOp(IRDLOperation):
    name = "nvvm.wgmma.wait.group.sync.aligned"
    group = prop_def(IntegerAttr[i64])
    assembly_format = "$group attr-dict"

    def __init__(self, group: int):
        super().__init__(properties={"group": IntegerAttr(group, i64)})

    def verify_(self) -> None:
        if self.group.value.data < 0:
            raise VerifyException("the group count must be non-negative")


@irdl_op_definition
class WgmmaMmaAsyncOp(IRDLOperation):
    """``D = A B + D`` over a 64 x N x 16 product of one warpgroup; ``layoutA`` /
    ``layoutB`` ``row`` / ``col`` are the K-major forms, the others (f16 and bf16
    only) the transposed, MN-major ones."""

    name = "nvvm.wgmma.mma_async"
    inouts = operand_def(LLVMStructType)
    descriptorA = operand_def(i64)
    descriptorB = operand_def(i64)
    shape = prop_def(MMAShapeAttr)
    typeA = prop_def(WgmmaTypeAttr)
    typeB = prop_def(WgmmaTypeAttr)
    typeD = prop_def(WgmmaTypeAttr)
    scaleD = prop_def(WgmmaScaleOutAttr)
    scaleA = prop_def(WgmmaScaleInAttr)
    scaleB = prop_def(WgmmaScaleInAttr)
    layoutA = prop_def(MMALayoutAttr)
    layoutB = prop_def(MMALayoutAttr)
    results_ = result_def(LLVMStructType)

    def __init__(
        self,
        accumulator: SSAValue | Operation,
        descriptor_a: SSAValue | Operation,
        descriptor_b: SSAValue | Operation,
        n: int,
        input_type: WgmmaType,
        a_k_major: bool = True,
        b_k_major: bool = True,
    ):
        one = WgmmaScaleInAttr(WgmmaScaleIn.ONE)
        super().__init__(
            operands=[accumulator, descriptor_a, descriptor_b],
            properties={
                "shape": MMAShapeAttr(WGMMA_M, n, WGMMA_K),
                "typeA": WgmmaTypeAttr(input_type),
                "typeB": WgmmaTypeAttr(input_type),
                "typeD": WgmmaTypeAttr(WgmmaType.F32),
                "scaleD": WgmmaScaleOutAttr(WgmmaScaleOut.ONE),
                "scaleA": one,
                "scaleB": one,
                "layoutA": MMALayoutAttr(MMALayout.ROW if a_k_major else MMALayout.COL),
                "layoutB": MMALayoutAttr(MMALayout.COL if b_k_major else MMALayout.ROW),
            },
            result_types=[accumulator_struct(n)],
        )

    @property
    def n(self) -> int:
        return self.shape.n.data

    def verify_(self) -> None:
        shape = (self.shape.m.data, self.shape.n.data, self.shape.k.data)
        if shape[0] != WGMMA_M or shape[2] != WGMMA_K or not (
            8 <= shape[1] <= 256 and shape[1] % 8 == 0
        ):
            raise VerifyException(
                f"tilepipe models m64nNk16 (N a multiple of 8 up to 256), got {list(shape)}"
            )
        if self.typeD.data is not WgmmaType.F32:
            raise VerifyException("the accumulator must be f32")
        if self.typeA.data != self.typeB.data or self.typeA.data is WgmmaType.F32:
            raise VerifyException("A and B must both be f16 or both bf16")
        expected: Attribute = accumulator_struct(shape[1])
        for value, what in ((self.inouts, "accumulator"), (self.results_, "result")):
            if value.type != expected:
                raise VerifyException(f"the {what} must be {expected}")


WGMMA_OPS: list[type[IRDLOperation]] = [
    WgmmaFenceAlignedOp,
    WgmmaCommitGroupSyncAlignedOp,
    WgmmaWaitGroupSyncOp,
    WgmmaMmaAsyncOp,
]

WGMMA_ATTRIBUTES: list[type[Attribute]] = [WgmmaTypeAttr, WgmmaScaleInAttr, WgmmaScaleOutAttr]
