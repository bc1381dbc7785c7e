"""``vector`` ops as MLIR 22.1.8 has them, where xDSL 0.75 differs or lacks them.

``lower-to-nvvm`` builds these (``lowering/nvvm/emit.py``): ``vector.load`` and
``vector.store`` with the ``alignment`` property upstream's LLVM lowering reads, and
``vector.shape_cast``.  :data:`VECTOR` is xDSL's ``vector`` dialect with these in
place of xDSL's load and store, registered by tile-opt and every tilepipe context
instead of xDSL's (``registry.OVERRIDES``), so that the lowered level reads back.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType, VectorType
from xdsl.dialects.vector import Vector as XDSL_VECTOR
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class AlignedVectorLoadOp(IRDLOperation):
    """``vector.load`` with MLIR 22's ``alignment`` property (xDSL 0.75 lacks it).

    Without it LLVM only knows the element alignment and splits 16-byte loads."""

    name = "vector.load"
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    alignment = prop_def(IntegerAttr[IntegerType])
    result = result_def(VectorType)


@irdl_op_definition
class AlignedVectorStoreOp(IRDLOperation):
    """``vector.store`` with MLIR 22's ``alignment`` property."""

    name = "vector.store"
    vector = operand_def(VectorType)
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    alignment = prop_def(IntegerAttr[IntegerType])


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """``vector.shape_cast`` (xDSL 0.75 lacks it): the same elements, another shape."""

    name = "vector.shape_cast"
    source = operand_def(VectorType)
    result = result_def(VectorType)

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, VectorType) and isinstance(result, VectorType)
        if (
            source.element_type != result.element_type
            or source.element_count() != result.element_count()
        ):
            raise VerifyException(f"cannot shape_cast {source} to {result}")


_REPLACED = {AlignedVectorLoadOp.name, AlignedVectorStoreOp.name}

VECTOR = Dialect(
    "vector",
    [
        *(op for op in XDSL_VECTOR.operations if op.name not in _REPLACED),
        AlignedVectorLoadOp,
        AlignedVectorStoreOp,
        ShapeCastOp,
    ],
    list(XDSL_VECTOR.attributes),
)
