"""The subset of upstream MLIR's ``nvvm`` dialect that tilepipe emits (xDSL has none).

Every op mirrors MLIR 22.1.8 exactly -- op name, operand and property names, operand
segment sizes, types -- so that the *generic* form xDSL prints is what upstream parses
(``test/python/cuda/test_nvvm_dialects.py`` checks each one against the real bindings).
Properties upstream gives a default (``scope = #nvvm.mem_scope<cta>``, ``relaxed =
false`` on the mbarrier ops) are left out: upstream fills in the default when it parses
the generic form.  Each op also reads the custom form upstream prints at the nvvm
level (its ``assembly_format``, as in ``NVVMOps.td``; tilepipe prints the generic one,
:mod:`tilepipe.dialects.upstream_syntax`).

Spelling notes for 22.1.8 (they change between MLIR versions):

* mbarrier ops take a ``!llvm.ptr<3>`` (shared) or generic ``!llvm.ptr``; the
  ``.shared`` variants of older releases are gone;
* ``nvvm.mbarrier.try_wait.parity`` exists only for sm_90+ (ptxas rejects it for
  sm_80); ``nvvm.mbarrier.test.wait`` is the sm_80 form;
* ``nvvm.barrier`` with ``barrierId``/``numberOfThreads`` operands is ``bar.sync id,
  count``; ``nvvm.barrier0`` is ``bar.sync 0`` (``__syncthreads``).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I32,
    BoolAttr,
    IntegerAttr,
    VectorType,
    f16,
    f32,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import (
    Dialect,
    Operation,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.nvvm_attrs import (  # re-exported: nvvm.ShflKind, ...
    NVVM_ATTRIBUTES,
    LoadCacheModifier,
    LoadCacheModifierAttr,
    MMALayout,
    MMALayoutAttr,
    MMAShapeAttr,
    MMAType,
    MMATypesAttr,
    ProxyKind,
    ProxyKindAttr,
    ReductionAttr,
    SharedSpace,
    SharedSpaceAttr,
    ShflKind,
    ShflKindAttr,
    TMALoadMode,
    TMALoadModeAttr,
)
from tilepipe.dialects.nvvm_lowered import LOWERED_ATTRIBUTES, LOWERED_OPS
from tilepipe.dialects.upstream_syntax import (
    OperandGroupTypes,
    PointerAddressSpace,
    reads_custom_form,
)

from tilepipe.dialects.nvvm_pointers import (  # re-exported: nvvm.shared_ptr_type, ...
    GLOBAL_ADDRESS_SPACE,
    SHARED_ADDRESS_SPACE,
    SHARED_CLUSTER_ADDRESS_SPACE,
    _i32,
    global_ptr_type,
    shared_ptr_type,
)
from tilepipe.dialects.nvvm_wgmma import (  # re-exported: nvvm.WgmmaMmaAsyncOp, ...
    WGMMA_ATTRIBUTES,
    WGMMA_OPS,
    WgmmaCommitGroupSyncAlignedOp,
    WgmmaFenceAlignedOp,
    WgmmaMmaAsyncOp,
    WgmmaType,
    WgmmaWaitGroupSyncOp,
)
from tilepipe.dialects.nvvm_warp_roles import (  # re-exported: nvvm.SetMaxRegisterOp, ...
    WARP_ROLE_ATTRIBUTES,
    WARP_ROLE_OPS,
    ElectSyncOp,
    SetMaxRegisterOp,
)
from tilepipe.dialects.nvvm_mbarrier import (  # re-exported: nvvm.MBarrierInitOp, ...
    MBARRIER_OPS,
    MBarrierArriveExpectTxOp,
    MBarrierArriveOp,
    MBarrierCompleteTxOp,
    MBarrierInitOp,
    MBarrierTestWaitOp,
    MBarrierTryWaitParityOp,
)


# --------------------------------------------------------------------------- barriers


@irdl_op_definition
class Barrier0Op(IRDLOperation):
    """``bar.sync 0``: all threads of the block (``__syncthreads``)."""

    name = "nvvm.barrier0"
    assembly_format = "attr-dict"


@reads_custom_form
@irdl_op_definition
class BarrierOp(IRDLOperation):
    """``bar.sync id, count``: a named barrier among ``numberOfThreads`` threads.

    Without operands it is barrier 0 over the whole block.
    """

    name = "nvvm.barrier"
    barrierId = opt_operand_def(i32)
    numberOfThreads = opt_operand_def(i32)
    reductionPredicate = opt_operand_def(i32)
    # A reducing barrier (`bar.red`): read from upstream's text, never emitted.
    reductionOp = opt_prop_def(ReductionAttr)
    res = opt_result_def(i32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "(`id` `=` $barrierId^)? (`number_of_threads` `=` $numberOfThreads^)? "
        "(qualified($reductionOp)^ $reductionPredicate)? (`->` type($res)^)? attr-dict"
    )

    def __init__(
        self,
        barrier_id: SSAValue | Operation | None = None,
        number_of_threads: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[
                [barrier_id] if barrier_id is not None else [],
                [number_of_threads] if number_of_threads is not None else [],
                [],
            ],
            result_types=[[]],
        )

    def verify_(self) -> None:
        if self.numberOfThreads is not None and self.barrierId is None:
            raise VerifyException("numberOfThreads needs a barrierId")
        reducing = (self.reductionOp, self.reductionPredicate, self.res)
        if any(part is None for part in reducing) != all(part is None for part in reducing):
            raise VerifyException("a reduction needs reductionOp, its predicate and a result")


# --------------------------------------------------------------------------- cp.async

CP_ASYNC_BYTES = (4, 8, 16)  # the sizes one cp.async moves; only 16 may bypass L1


def verify_cp_async_bytes(size: int, bypass_l1: bool) -> None:
    """The PTX rule both ``nvvm.cp.async.shared.global`` and ``nvgpu.device_async_copy``
    obey (shared so that their verifiers cannot drift apart)."""
    if size not in CP_ASYNC_BYTES:
        raise VerifyException(f"a cp.async moves 4, 8 or 16 bytes, not {size}")
    if bypass_l1 and size != 16:
        raise VerifyException("bypassing L1 (bypassL1 / cache modifier cg needs a 16-byte copy)")


@reads_custom_form
@irdl_op_definition
class CpAsyncSharedGlobalOp(IRDLOperation):
    """``cp.async.{ca,cg}.shared.global [dst], [src], size``."""

    name = "nvvm.cp.async.shared.global"
    dst = operand_def(LLVMPointerType)
    src = operand_def(LLVMPointerType)
    cpSize = opt_operand_def(i32)
    size = prop_def(IntegerAttr[I32])
    modifier = prop_def(LoadCacheModifierAttr)
    assembly_format = (
        "$dst `,` $src `,` $size `,` `cache` `=` $modifier (`,` $cpSize^)? attr-dict "
        "`:` type(operands)"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        src: SSAValue | Operation,
        size: int,
        modifier: LoadCacheModifier,
    ):
        super().__init__(
            operands=[dst, src, []],
            properties={
                "size": _i32(size),
                "modifier": LoadCacheModifierAttr(modifier),
            },
        )

    def verify_(self) -> None:
        verify_cp_async_bytes(
            self.size.value.data, self.modifier.data == LoadCacheModifier.CG
        )


@irdl_op_definition
class CpAsyncCommitGroupOp(IRDLOperation):
    """``cp.async.commit_group``: close the issuing thread's outstanding copies."""

    name = "nvvm.cp.async.commit.group"
    assembly_format = "attr-dict"


@irdl_op_definition
class CpAsyncWaitGroupOp(IRDLOperation):
    """``cp.async.wait_group n``: wait until at most ``n`` groups are pending."""

    name = "nvvm.cp.async.wait.group"
    n = prop_def(IntegerAttr[I32])
    assembly_format = "$n attr-dict"

    def __init__(self, n: int):
        super().__init__(properties={"n": _i32(n)})

    def verify_(self) -> None:
        if self.n.value.data < 0:
            raise VerifyException("the number of pending groups must be >= 0")


@reads_custom_form
@irdl_op_definition
class CpAsyncBulkSharedClusterGlobalOp(IRDLOperation):
    """``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`` (sm_90):
    copy ``size`` contiguous bytes (a multiple of 16, 16-byte aligned) and complete
    them as transaction bytes on the mbarrier ``mbar``.  ``dstMem`` is a
    ``!llvm.ptr<7>`` (shared::cluster); with a ``!llvm.ptr<3>`` upstream selects the
    ``.shared::cta`` form, which needs PTX 8.6."""

    name = "nvvm.cp.async.bulk.shared.cluster.global"
    dstMem = operand_def(LLVMPointerType)
    srcMem = operand_def(LLVMPointerType)
    # Upstream's types (its form leaves out those it implies): a shared mbarrier,
    # an i16 multicast mask, an i64 cache hint.
    mbar = operand_def(shared_ptr_type())
    size = operand_def(i32)
    multicastMask = opt_operand_def(i16)
    l2CacheHint = opt_operand_def(i64)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (PointerAddressSpace,)
    assembly_format = (
        "$dstMem `,` $srcMem `,` $mbar `,` $size (`multicast_mask` `=` $multicastMask^)? "
        "(`l2_cache_hint` `=` $l2CacheHint^)? attr-dict "
        "`:` type($dstMem) `,` custom<PointerAddressSpace>(type($srcMem))"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        src: SSAValue | Operation,
        mbar: SSAValue | Operation,
        size: SSAValue | Operation,
    ):
        super().__init__(operands=[dst, src, mbar, size, [], []])


@reads_custom_form
@irdl_op_definition
class CpAsyncBulkTensorSharedClusterGlobalOp(IRDLOperation):
    """``cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes``
    (sm_90): copy the box of the tensor map ``tmaDescriptor`` whose first element
    is at ``coordinates`` (innermost dimension first) into shared memory at
    ``dstMem``, in the map's swizzle, zero-filling the elements outside the tensor,
    and complete the box's bytes on the mbarrier ``mbar``.  The map is a 128-byte
    ``CUtensorMap`` the host encodes (``cuTensorMapEncodeTiled``); tilepipe passes it
    as a ``__grid_constant__`` kernel parameter and hands its generic address here."""

    name = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
    dstMem = operand_def(LLVMPointerType)
    tmaDescriptor = operand_def(LLVMPointerType)
    coordinates = var_operand_def(i32)
    mbar = operand_def(shared_ptr_type())
    im2colOffsets = var_operand_def(i16)
    multicastMask = opt_operand_def(i16)
    l2CacheHint = opt_operand_def(i64)
    predicate = opt_operand_def(i1)
    # Upstream's defaults (tile mode, the cluster form), spelled out in its generic
    # print; tilepipe leaves them out.
    mode = opt_prop_def(TMALoadModeAttr)
    isCTAOnly = opt_prop_def(BoolAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$dstMem `,` $tmaDescriptor `,` $mbar `,` `box` `[` $coordinates `]` "
        "(`im2col` `[` $im2colOffsets^ `]`)? "
        "(`multicast_mask` `=` $multicastMask^)? (`l2_cache_hint` `=` $l2CacheHint^)? "
        "(`predicate` `=` $predicate^)? attr-dict `:` type($dstMem) `,` type($tmaDescriptor)"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        tensor_map: SSAValue | Operation,
        coordinates: Sequence[SSAValue | Operation],
        mbar: SSAValue | Operation,
    ):
        super().__init__(operands=[dst, tensor_map, coordinates, mbar, [], [], [], []])

    def verify_(self) -> None:
        if not 1 <= len(self.coordinates) <= 5:
            raise VerifyException("a tensor copy takes 1 to 5 coordinates")
        if self.im2colOffsets or (self.mode is not None and self.mode.data != TMALoadMode.TILE):
            raise VerifyException("tilepipe models the tile mode only")


@reads_custom_form
@irdl_op_definition
class FenceProxyOp(IRDLOperation):
    """``fence.proxy.async.shared::cta`` (sm_90): orders this thread's generic-proxy
    accesses of CTA shared memory before its later async-proxy ones (bulk copies,
    their mbarrier complete_tx).  Upstream requires ``space`` for ``async.shared``."""

    name = "nvvm.fence.proxy"
    kind = prop_def(ProxyKindAttr)
    space = prop_def(SharedSpaceAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(
            properties={
                "kind": ProxyKindAttr(ProxyKind.ASYNC_SHARED),
                "space": SharedSpaceAttr(SharedSpace.CTA),
            }
        )


@reads_custom_form
@irdl_op_definition
class ShflSyncOp(IRDLOperation):
    """``shfl.sync.{bfly,up,down,idx}``: exchange a value between the lanes of a warp."""

    name = "nvvm.shfl.sync"
    thread_mask = operand_def(i32)
    val = operand_def()
    offset = operand_def(i32)
    mask_and_clamp = operand_def(i32)
    kind = prop_def(ShflKindAttr)
    res = result_def()
    assembly_format = (
        "$kind $thread_mask `,` $val `,` $offset `,` $mask_and_clamp attr-dict "
        "`:` type($val) `->` type($res)"
    )

    def __init__(
        self,
        kind: ShflKind,
        thread_mask: SSAValue | Operation,
        val: SSAValue,
        offset: SSAValue | Operation,
        mask_and_clamp: SSAValue | Operation,
    ):
        super().__init__(
            operands=[thread_mask, val, offset, mask_and_clamp],
            properties={"kind": ShflKindAttr(kind)},
            result_types=[val.type],
        )

    def verify_(self) -> None:
        if self.res.type != self.val.type:
            raise VerifyException("the result type must be the value type")


# --------------------------------------------------------------------------- mma


MMA_ACCUMULATOR_STRUCT = LLVMStructType.from_type_list([f32] * 4)
_F16_PAIR = VectorType(f16, [2])


@reads_custom_form
@irdl_op_definition
class MmaOp(IRDLOperation):
    """``mma.sync.aligned`` with explicit PTX registers (upstream ``nvvm.mma.sync``).

    tilepipe emits only ``m16n8k16.row.col`` with bf16 multiplicands and f32
    accumulators: A is four i32 registers and B two, each holding a ``vector<2xbf16>``
    pair (the lower half the lower column/row), C four f32; the result is
    ``!llvm.struct<(f32, f32, f32, f32)>``.  (f16 goes through ``nvgpu.mma.sync``.)
    """

    name = "nvvm.mma.sync"
    operandA = var_operand_def()
    operandB = var_operand_def()
    operandC = var_operand_def()
    shape = prop_def(MMAShapeAttr)
    layoutA = prop_def(MMALayoutAttr)
    layoutB = prop_def(MMALayoutAttr)
    # Absent where upstream infers them from the register types (f16).
    multiplicandAPtxType = opt_prop_def(MMATypesAttr)
    multiplicandBPtxType = opt_prop_def(MMATypesAttr)
    res = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    # Upstream's form is hand-written C++: one type per register group.
    custom_directives = (OperandGroupTypes,)
    assembly_format = (
        "`A` `[` $operandA `]` `B` `[` $operandB `]` `C` `[` $operandC `]` attr-dict `:` "
        "custom<OperandGroupTypes>(type($operandA), type($operandB), type($operandC)) "
        "`->` type($res)"
    )

    def __init__(
        self,
        a: Sequence[SSAValue | Operation],
        b: Sequence[SSAValue | Operation],
        c: Sequence[SSAValue | Operation],
        ptx_type: MMAType = MMAType.BF16,
    ):
        super().__init__(
            operands=[list(a), list(b), list(c)],
            properties={
                "shape": MMAShapeAttr(16, 8, 16),
                "layoutA": MMALayoutAttr(MMALayout.ROW),
                "layoutB": MMALayoutAttr(MMALayout.COL),
                "multiplicandAPtxType": MMATypesAttr(ptx_type),
                "multiplicandBPtxType": MMATypesAttr(ptx_type),
            },
            result_types=[MMA_ACCUMULATOR_STRUCT],
        )

    def verify_(self) -> None:
        shape = (self.shape.m.data, self.shape.n.data, self.shape.k.data)
        if shape != (16, 8, 16):
            raise VerifyException("only m16n8k16 is supported")
        if (len(self.operandA), len(self.operandB)) != (4, 2):
            raise VerifyException("m16n8k16 takes 4 A and 2 B registers")
        ptx_types = {
            t.data if t is not None else None
            for t in (self.multiplicandAPtxType, self.multiplicandBPtxType)
        }
        register_types = {v.type for v in (*self.operandA, *self.operandB)}
        if ptx_types == {MMAType.BF16}:
            if register_types != {i32}:
                raise VerifyException("A and B registers must be i32 (packed bf16 pairs)")
        elif ptx_types <= {MMAType.F16, None}:
            # f16, as upstream's convert-nvgpu-to-nvvm leaves it (the llvm level).
            if register_types != {_F16_PAIR}:
                raise VerifyException("A and B registers must be vector<2xf16>")
        else:
            raise VerifyException("only bf16 and f16 multiplicands are supported")
        accumulator_types = {v.type for v in self.operandC}
        if accumulator_types == {f32} and len(self.operandC) == 4:
            expected = MMA_ACCUMULATOR_STRUCT
        elif accumulator_types == {_F16_PAIR} and len(self.operandC) == 2:
            expected = LLVMStructType.from_type_list([_F16_PAIR] * 2)
        else:
            raise VerifyException("C must be 4 f32 or 2 vector<2xf16> registers")
        if self.res.type != expected:
            raise VerifyException(f"the result must be {expected}")


def _parse_with_inferred_ptx_types(parse):
    """Upstream's custom form leaves out the multiplicand types it can infer from the
    registers (f16) and its parser fills them in; its generic parser needs them (MLIR
    22.1.8 asserts without them).  Parsed ops get them here, so that the generic form
    tilepipe prints reads back upstream."""

    def parse_mma(cls, parser):
        op = parse.__func__(cls, parser)
        if all(v.type == _F16_PAIR for v in (*op.operandA, *op.operandB)):
            for name in ("multiplicandAPtxType", "multiplicandBPtxType"):
                op.properties.setdefault(name, MMATypesAttr(MMAType.F16))
        return op

    return classmethod(parse_mma)


MmaOp.parse = _parse_with_inferred_ptx_types(MmaOp.parse)  # type: ignore[method-assign]


NVVM_OPS: list[type[IRDLOperation]] = [
    Barrier0Op,
    BarrierOp,
    CpAsyncSharedGlobalOp,
    CpAsyncCommitGroupOp,
    CpAsyncWaitGroupOp,
    CpAsyncBulkSharedClusterGlobalOp,
    CpAsyncBulkTensorSharedClusterGlobalOp,
    FenceProxyOp,
    *MBARRIER_OPS,
    ShflSyncOp,
    MmaOp,
    *WGMMA_OPS,
    *WARP_ROLE_OPS,
]

NVVM = Dialect(
    "nvvm",
    [*NVVM_OPS, *LOWERED_OPS],
    [*NVVM_ATTRIBUTES, *WGMMA_ATTRIBUTES, *WARP_ROLE_ATTRIBUTES, *LOWERED_ATTRIBUTES],
)
