"""The subset of upstream MLIR's ``nvgpu`` dialect that tilepipe emits (xDSL has none).

The ops work on memrefs and vectors, one level above ``nvvm``; upstream's
``convert-nvgpu-to-nvvm`` turns them into ``cp.async``, ``ldmatrix`` and ``mma.sync``.
Names, operand/property names and types are those of MLIR 22.1.8 so that the generic
form xDSL prints is what upstream parses (checked by ``test/python/cuda/test_nvvm_dialects.py``).

Shared-memory operands must live in address space 3 (or ``#gpu.address_space<workgroup>``):
that is how upstream recognises shared memory.

Each op reads upstream's custom form too (its ``assembly_format``, as in
``NVGPUOps.td``), which upstream prints at the nvvm level (``tilepipe compile --emit
nvvm``); tilepipe prints the generic one (:mod:`tilepipe.dialects.upstream_syntax`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    BoolAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.nvvm import verify_cp_async_bytes
from tilepipe.dialects.upstream_syntax import reads_custom_form

# The mma.sync shape tilepipe emits (16-bit inputs, f32 accumulators).
MMA_M16N8K16 = (16, 8, 16)


@irdl_attr_definition
class DeviceAsyncTokenType(ParametrizedAttribute, TypeAttribute):
    """``!nvgpu.device.async.token``: the handle of an async copy or copy group."""

    name = "nvgpu.device.async.token"


def _memref_rank(value: SSAValue) -> int:
    assert isinstance(value.type, MemRefType)
    return len(value.type.get_shape())


@reads_custom_form
@irdl_op_definition
class DeviceAsyncCopyOp(IRDLOperation):
    """``cp.async`` of ``dstElements`` contiguous elements from global to shared; with
    ``srcElements`` only that many are read and the rest of the destination is
    zero-filled (PTX's src-size operand)."""

    name = "nvgpu.device_async_copy"
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType)
    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType)
    srcElements = opt_operand_def(IndexType)
    dstElements = prop_def(IntegerAttr[IndexType])
    bypassL1 = opt_prop_def(UnitAttr)
    asyncToken = result_def(DeviceAsyncTokenType)
    # Upstream's form spells the properties it does not name (bypassL1) in attr-dict.
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` `,` $dstElements "
        "(`,` $srcElements^)? attr-dict `:` type($src) `to` type($dst)"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        dst_indices: Sequence[SSAValue | Operation],
        src: SSAValue | Operation,
        src_indices: Sequence[SSAValue | Operation],
        elements: int,
        bypass_l1: bool = False,
        src_elements: SSAValue | Operation | None = None,
    ):
        properties: dict[str, Attribute] = {
            "dstElements": IntegerAttr(elements, IndexType())
        }
        if bypass_l1:
            properties["bypassL1"] = UnitAttr()
        super().__init__(
            operands=[dst, dst_indices, src, src_indices, [src_elements] if src_elements else []],
            properties=properties,
            result_types=[DeviceAsyncTokenType()],
        )

    def verify_(self) -> None:
        if len(self.dstIndices) != _memref_rank(self.dst):
            raise VerifyException("expected one destination index per dimension")
        if len(self.srcIndices) != _memref_rank(self.src):
            raise VerifyException("expected one source index per dimension")
        assert isinstance(self.dst.type, MemRefType)
        element_bits = self.dst.type.element_type.bitwidth
        copy_bytes = self.dstElements.value.data * element_bits // 8
        verify_cp_async_bytes(copy_bytes, self.bypassL1 is not None)


@reads_custom_form
@irdl_op_definition
class DeviceAsyncCreateGroupOp(IRDLOperation):
    """``cp.async.commit_group`` of the copies whose tokens are given."""

    name = "nvgpu.device_async_create_group"
    inputTokens = var_operand_def(DeviceAsyncTokenType)
    asyncToken = result_def(DeviceAsyncTokenType)
    assembly_format = "$inputTokens attr-dict"

    def __init__(self, tokens: Sequence[SSAValue | Operation]):
        super().__init__(operands=[tokens], result_types=[DeviceAsyncTokenType()])


@reads_custom_form
@irdl_op_definition
class DeviceAsyncWaitOp(IRDLOperation):
    """``cp.async.wait_group numGroups``."""

    name = "nvgpu.device_async_wait"
    asyncDependencies = operand_def(DeviceAsyncTokenType)
    numGroups = opt_prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$asyncDependencies attr-dict"

    def __init__(self, group: SSAValue | Operation, num_groups: int | None = None):
        properties = {} if num_groups is None else {"numGroups": IntegerAttr(num_groups, i32)}
        super().__init__(operands=[group], properties=properties)


@reads_custom_form
@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16``.

    Every lane gives the address of one 8-element row (lanes 8i..8i+7 address the rows
    of matrix i); lane ``l`` receives the elements ``2*(l%4), 2*(l%4)+1`` of row ``l/4``
    of every matrix (of the transposed matrix with ``transpose``).
    """

    name = "nvgpu.ldmatrix"
    srcMemref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    transpose = prop_def(BoolAttr)
    numTiles = prop_def(IntegerAttr[I32])
    res = result_def(VectorType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcMemref `[` $indices `]` attr-dict `:` type($srcMemref) `->` type($res)"

    def __init__(
        self,
        src: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        num_tiles: int,
        transpose: bool,
        result_type: VectorType,
    ):
        super().__init__(
            operands=[src, indices],
            properties={
                "numTiles": IntegerAttr(num_tiles, i32),
                "transpose": BoolAttr.from_bool(transpose),
            },
            result_types=[result_type],
        )

    def verify_(self) -> None:
        if self.numTiles.value.data not in (1, 2, 4):
            raise VerifyException("numTiles must be 1, 2 or 4")
        if len(self.indices) != _memref_rank(self.srcMemref):
            raise VerifyException("expected one index per dimension")
        shape = self.res.type.get_shape()
        if len(shape) != 2 or shape[0] != self.numTiles.value.data:
            raise VerifyException(
                "the result must be vector<numTiles x (32 bits of elements)>"
            )


@reads_custom_form
@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """``mma.sync.aligned`` on per-thread fragments (``D = A * B + C``)."""

    name = "nvgpu.mma.sync"
    matrixA = operand_def(VectorType)
    matrixB = operand_def(VectorType)
    matrixC = operand_def(VectorType)
    mmaShape = prop_def(ArrayAttr[IntegerAttr])
    tf32Enabled = opt_prop_def(UnitAttr)
    res = result_def(VectorType)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "`(` $matrixA `,` $matrixB `,` $matrixC `)` attr-dict `:` "
        "`(` type($matrixA) `,` type($matrixB) `,` type($matrixC) `)` `->` type($res)"
    )

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue,
        shape: Sequence[int] = MMA_M16N8K16,
    ):
        super().__init__(
            operands=[a, b, c],
            properties={"mmaShape": ArrayAttr([IntegerAttr(d, i64) for d in shape])},
            result_types=[c.type],
        )

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.value.data for a in self.mmaShape.data)

    def verify_(self) -> None:
        if len(self.mmaShape.data) != 3:
            raise VerifyException("mmaShape must be [m, n, k]")
        if self.res.type != self.matrixC.type:
            raise VerifyException("the result type must be the accumulator type")


NVGPU = Dialect(
    "nvgpu",
    [
        DeviceAsyncCopyOp,
        DeviceAsyncCreateGroupOp,
        DeviceAsyncWaitOp,
        LdMatrixOp,
        MmaSyncOp,
    ],
    [DeviceAsyncTokenType],
)
