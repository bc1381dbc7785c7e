"""``vector`` ops as MLIR 22.1.8 has them, where xDSL 0.75 differs or lacks them.

``lower-to-nvvm`` builds ``vector.load`` and ``vector.store`` with the ``alignment``
property upstream's LLVM lowering reads (``lowering/nvvm/emit.py``).
``vector.shape_cast`` and ``vector.extract_strided_slice`` are read, not built: of a
2-D vector, upstream lowers them only in the ``convert-vector-to-llvm`` pass, not in
``gpu-lower-to-nvvm-pipeline``, so fragments change shape by ``vector.shuffle``,
``extract`` and ``insert`` instead.  :data:`VECTOR` is xDSL's ``vector`` dialect with these in
place of xDSL's load and store, registered by tile-opt and every tilepipe context
instead of xDSL's (``registry.OVERRIDES``), so that the lowered level reads back.
Each reads upstream's custom form too (its ``assembly_format``, as in
``VectorOps.td``), which upstream prints at the nvvm level; tilepipe prints the
generic one (:mod:`tilepipe.dialects.upstream_syntax`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
    i64,
)
from xdsl.dialects.vector import Vector as XDSL_VECTOR
from xdsl.ir import Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.upstream_syntax import reads_custom_form


@reads_custom_form
@irdl_op_definition
class AlignedVectorLoadOp(IRDLOperation):
    """``vector.load`` with MLIR 22's ``alignment`` property (xDSL 0.75 lacks it).

    Without it LLVM only knows the element alignment and splits 16-byte loads."""

    name = "vector.load"
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    alignment = prop_def(IntegerAttr[IntegerType])
    result = result_def(VectorType)
    # Upstream's form spells `alignment` in attr-dict.
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$base `[` $indices `]` attr-dict `:` type($base) `,` type($result)"


@reads_custom_form
@irdl_op_definition
class AlignedVectorStoreOp(IRDLOperation):
    """``vector.store`` with MLIR 22's ``alignment`` property."""

    name = "vector.store"
    vector = operand_def(VectorType)
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    alignment = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$vector `,` $base `[` $indices `]` attr-dict `:` type($base) `,` type($vector)"
    )


@reads_custom_form
@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """``vector.shape_cast`` (xDSL 0.75 lacks it): the same elements, another shape."""

    name = "vector.shape_cast"
    source = operand_def(VectorType)
    result = result_def(VectorType)
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, VectorType) and isinstance(result, VectorType)
        if (
            source.element_type != result.element_type
            or source.element_count() != result.element_count()
        ):
            raise VerifyException(f"cannot shape_cast {source} to {result}")


@reads_custom_form
@irdl_op_definition
class ExtractStridedSliceOp(IRDLOperation):
    """``vector.extract_strided_slice`` with unit strides (xDSL 0.75 lacks it): the
    rows ``offsets[0] .. offsets[0] + sizes[0]`` of the leading dimension."""

    name = "vector.extract_strided_slice"
    source = operand_def(VectorType)
    offsets = prop_def(ArrayAttr[IntegerAttr[IntegerType]])
    sizes = prop_def(ArrayAttr[IntegerAttr[IntegerType]])
    strides = prop_def(ArrayAttr[IntegerAttr[IntegerType]])
    result = result_def(VectorType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source attr-dict `:` type($source) `to` type(results)"

    def __init__(self, source: SSAValue, first_row: int, rows: int) -> None:
        source_type = source.type
        assert isinstance(source_type, VectorType)
        super().__init__(
            operands=[source],
            properties={
                "offsets": ArrayAttr([IntegerAttr(first_row, i64)]),
                "sizes": ArrayAttr([IntegerAttr(rows, i64)]),
                "strides": ArrayAttr([IntegerAttr(1, i64)]),
            },
            result_types=[
                VectorType(source_type.element_type, [rows, *source_type.get_shape()[1:]])
            ],
        )

    def verify_(self) -> None:
        source, result = self.source.type, self.result.type
        assert isinstance(source, VectorType) and isinstance(result, VectorType)
        slices = [[a.value.data for a in p.data] for p in (self.offsets, self.sizes, self.strides)]
        if any(len(values) != 1 for values in slices) or slices[2] != [1]:
            raise VerifyException("only unit-stride slices of the leading dimension")
        (offset,), (size,), _ = slices
        shape = source.get_shape()
        if (
            offset < 0
            or offset + size > shape[0]
            or result.get_shape() != (size, *shape[1:])
            or result.element_type != source.element_type
        ):
            raise VerifyException(f"rows {offset}..{offset + size} of {source} are not {result}")


_REPLACED = {AlignedVectorLoadOp.name, AlignedVectorStoreOp.name}

VECTOR = Dialect(
    "vector",
    [
        *(op for op in XDSL_VECTOR.operations if op.name not in _REPLACED),
        AlignedVectorLoadOp,
        AlignedVectorStoreOp,
        ShapeCastOp,
        ExtractStridedSliceOp,
    ],
    list(XDSL_VECTOR.attributes),
)
