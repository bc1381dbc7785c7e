"""Scheduled-level async/sync ops of the ``pipeline`` dialect: async copies with
tokens, commit/wait groups, full and partial block barriers, mbarriers, bulk copies
and the async proxy fence.  Syntax and execution model: docs/semantics.md,
"Scheduled-level sync ops"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.memory_space import MemorySpace, UnknownMemorySpace, memory_space
from tilepipe.dialects.tile_forms import SrcDstForm
from tilepipe.dialects.tile_base import ON_CHIP, TileOp, constant_index
from tilepipe.dialects.tile_syntax import (
    parse_i64,
    parse_region_operand,
    parse_signature,
    parse_tile_shape,
    print_region_operand,
    print_tile_shape,
    resolve_region_operand,
)
from tilepipe.core.targets import CudaTarget, UnknownTarget, target_of

NAMED_BARRIERS = 16  # bar.sync ids 0..15
WARP_SIZE = 32

# --------------------------------------------------------------------------- types


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """The completion token of one async copy, consumed by ``commit_group``."""

    name = "pipeline.token"


# --------------------------------------------------------------------------- copies

OFF_CHIP = frozenset({MemorySpace.GLOBAL, MemorySpace.GM})


class AsyncTileCopy(TileOp):
    """A tile copy performed by an asynchronous engine (shared structure)."""

    REGION_OPERANDS: ClassVar = (("src", "src_offsets", "src"), ("dst", "dst_offsets", "dst"))
    LEGAL_SPACES: ClassVar = {"src": OFF_CHIP, "dst": ON_CHIP}

    def verify_tile_op(self) -> None:
        if self.element_type("src") != self.element_type("dst"):
            raise VerifyException(
                "source and destination element types differ "
                f"({self.element_type('src')} vs {self.element_type('dst')})"
            )


@irdl_op_definition
class AsyncCopyOp(SrcDstForm, AsyncTileCopy):
    """Issue an asynchronous global -> on-chip tile copy (``cp.async``).

    The destination is written when a ``wait_group`` covering the copy's commit group
    completes; reading it earlier sees its old contents.
    """

    name = "pipeline.async_copy"
    token = result_def(TokenType)

    def __init__(
        self,
        src: SSAValue | Operation,
        src_offsets: Sequence[SSAValue | Operation],
        dst: SSAValue | Operation,
        dst_offsets: Sequence[SSAValue | Operation],
        shape: Sequence[int],
    ):
        super().__init__(src, src_offsets, dst, dst_offsets, shape, result_types=[TokenType()])


def _verify_mbarrier_slot(barriers: SSAValue, index: SSAValue | None) -> None:
    """``barriers`` must be a rank-1 ``i64`` shared buffer, ``index`` in bounds."""
    buffer_type = barriers.type
    if not isinstance(buffer_type, MemRefType):
        raise VerifyException(f"mbarriers must live in a memref, got {buffer_type}")
    try:
        space = memory_space(buffer_type)
    except UnknownMemorySpace as e:
        raise VerifyException(str(e)) from e
    shape = buffer_type.get_shape()
    if (
        len(shape) != 1
        or buffer_type.element_type != i64
        or space is not MemorySpace.SHARED
    ):
        raise VerifyException(
            'mbarriers must live in a memref<N x i64, "shared">, got ' f"{buffer_type}"
        )
    if index is None:
        raise VerifyException("expected one mbarrier index, e.g. %bars[%i]")
    value = constant_index(index)
    if value is not None and shape[0] >= 0 and not 0 <= value < shape[0]:
        raise VerifyException(
            f"mbarrier index {value} is out of bounds for {shape[0]} mbarriers"
        )


@irdl_op_definition
class BulkCopyOp(AsyncTileCopy):
    """A bulk (TMA-style) tile copy that completes its bytes on an mbarrier slot.

    With ``tensor_map`` it is one tensor-map copy of the whole tile (its box): the
    hardware zero-fills the box past the edge of the global array and still counts
    the box's bytes, and the shared tile may be swizzled.  Without, the copy moves
    the tile's rows one by one (``cp.async.bulk``), and an edge tile is copied by
    plain loads.  ``tma-copy`` decides (docs/sync.md)."""

    name = "pipeline.bulk_copy"
    src = operand_def(MemRefType)
    src_offsets = var_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_offsets = var_operand_def(IndexType)
    barriers = operand_def(MemRefType)
    barrier_index = var_operand_def(IndexType)
    tensor_map = opt_prop_def(UnitAttr)

    def __init__(
        self,
        src: SSAValue | Operation,
        src_offsets: Sequence[SSAValue | Operation],
        dst: SSAValue | Operation,
        dst_offsets: Sequence[SSAValue | Operation],
        barriers: SSAValue | Operation,
        barrier_index: SSAValue | Operation,
        shape: Sequence[int],
        tensor_map: bool = False,
    ):
        properties: dict[str, Attribute] = {"shape": DenseArrayBase.from_list(i64, shape)}
        if tensor_map:
            properties["tensor_map"] = UnitAttr()
        super().__init__(
            operands=[src, src_offsets, dst, dst_offsets, barriers, [barrier_index]],
            properties=properties,
        )

    @property
    def is_tensor_copy(self) -> bool:
        return self.tensor_map is not None

    @property
    def barrier_slot(self) -> SSAValue:
        return self.barrier_index[0]

    def verify_tile_op(self) -> None:
        super().verify_tile_op()
        if len(self.barrier_index) != 1:
            raise VerifyException("expected one mbarrier index, e.g. %bars[%i]")
        _verify_mbarrier_slot(self.barriers, self.barrier_index[0])

    def print(self, printer: Printer) -> None:
        print_tile_shape(printer, self.tile_shape)
        printer.print_string(" tensor_map " if self.is_tensor_copy else " ")
        print_region_operand(printer, self.src, self.src_offsets)
        printer.print_string(" -> ")
        print_region_operand(printer, self.dst, self.dst_offsets)
        printer.print_string(", ")
        print_region_operand(printer, self.barriers, self.barrier_index)
        printer.print_op_attributes(self.attributes)
        printer.print_string(
            f" : {self.src.type} -> {self.dst.type}, {self.barriers.type}"
        )

    @classmethod
    def parse(cls, parser: Parser) -> BulkCopyOp:
        shape = parse_tile_shape(parser)
        tensor_map = parser.parse_optional_keyword("tensor_map") is not None
        src = parse_region_operand(parser)
        parser.parse_punctuation("->")
        dst = parse_region_operand(parser)
        parser.parse_punctuation(",")
        bars_pos = parser.pos
        bars = parse_region_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        src_type, dst_type = parse_signature(parser, 1)
        parser.parse_punctuation(",")
        bars_type = parser.parse_type()
        barriers, index = resolve_region_operand(parser, bars, bars_type)
        if len(index) != 1:
            parser.raise_error("expected one mbarrier index, e.g. %bars[%i]", bars_pos)
        op = cls(
            *resolve_region_operand(parser, src, src_type),
            *resolve_region_operand(parser, dst, dst_type),
            barriers,
            index[0],
            shape,
            tensor_map,
        )
        op.attributes |= attrs
        return op


# --------------------------------------------------------------------------- groups


@irdl_op_definition
class CommitGroupOp(IRDLOperation):
    """Close the current group of async copies (``cp.async.commit_group``).

    The group holds every copy issued since the previous commit; the operands consume
    the tokens of those copies (an empty group is legal and keeps wait counts uniform).
    """

    name = "pipeline.commit_group"
    tokens = var_operand_def(TokenType)
    # The tokens are bracketed, as upstream gpu.wait brackets its dependencies: a bare
    # optional operand list would swallow the `%x` that starts the next line.
    assembly_format = "(` ` `[` $tokens^ `]`)? attr-dict"

    def __init__(self, tokens: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[tokens])


class IntPropertySyntax:
    """Print/parse ``<op> key = value, key = value`` for integer properties."""

    INT_PROPERTIES: ClassVar[tuple[str, ...]] = ()

    def int_property(self, name: str) -> int | None:
        attr = getattr(self, name)
        return None if attr is None else attr.value.data

    def print_int_properties(self, printer: Printer) -> None:
        given = [
            (name, value)
            for name in self.INT_PROPERTIES
            if (value := self.int_property(name)) is not None
        ]
        if given:
            printer.print_string(
                " " + ", ".join(f"{name} = {value}" for name, value in given)
            )

    @classmethod
    def parse_int_properties(cls, parser: Parser, leading_comma: bool) -> dict[str, int]:
        values: dict[str, int] = {}
        first = True
        while True:
            if not first or leading_comma:
                if parser.parse_optional_punctuation(",") is None:
                    break
            pos = parser.pos
            name = parser.parse_optional_keyword_in(cls.INT_PROPERTIES)
            if name is None:
                if first and not leading_comma:
                    break
                parser.raise_error(
                    f"expected one of {', '.join(cls.INT_PROPERTIES)}", pos
                )
            if name in values:
                parser.raise_error(f"'{name}' given twice", pos)
            parser.parse_punctuation("=")
            values[name] = parse_i64(parser, name)
            first = False
        return values


@irdl_op_definition
class WaitGroupOp(IRDLOperation):
    """Wait until at most ``pending`` committed groups of async copies are in flight
    (``cp.async.wait_group N``); the completed copies' data has landed."""

    name = "pipeline.wait_group"
    pending = prop_def(IntegerAttr[IntegerType])

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    @property
    def pending_groups(self) -> int:
        return self.pending.value.data

    def verify_(self) -> None:
        if self.pending_groups < 0:
            raise VerifyException(
                f"the pending group count must be >= 0, got {self.pending_groups}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pending_groups}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> WaitGroupOp:
        op = cls(parse_i64(parser, "pending group count"))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


# --------------------------------------------------------------------------- barriers


@irdl_op_definition
class BarrierOp(IntPropertySyntax, IRDLOperation):
    """A block barrier: all threads (``__syncthreads``), or with ``threads = N`` a
    partial barrier over threads ``0 .. N-1`` on hardware barrier ``id``
    (``bar.sync id, N``)."""

    name = "pipeline.barrier"
    id = opt_prop_def(IntegerAttr[IntegerType])
    threads = opt_prop_def(IntegerAttr[IntegerType])

    INT_PROPERTIES: ClassVar = ("id", "threads")

    def __init__(self, id: int | None = None, threads: int | None = None):
        props: dict[str, Attribute] = {}
        if id is not None:
            props["id"] = IntegerAttr(id, i64)
        if threads is not None:
            props["threads"] = IntegerAttr(threads, i64)
        super().__init__(properties=props)

    @property
    def barrier_id(self) -> int:
        return self.int_property("id") or 0

    @property
    def thread_count(self) -> int | None:
        """The participating thread count; None = the whole block."""
        return self.int_property("threads")

    def verify_(self) -> None:
        if not 0 <= self.barrier_id < NAMED_BARRIERS:
            raise VerifyException(
                f"barrier id must be in [0, {NAMED_BARRIERS}), got {self.barrier_id}"
            )
        threads = self.thread_count
        if threads is not None and (threads <= 0 or threads % WARP_SIZE):
            raise VerifyException(
                f"a partial barrier's thread count must be a positive multiple of "
                f"the warp size ({WARP_SIZE}), got {threads}"
            )
        kernel = self.parent_op()
        while kernel is not None and not isinstance(kernel, FuncOp):
            kernel = kernel.parent_op()
        if threads is not None and kernel is not None:
            _, block_threads = kernel_launch_shape(kernel)
            if threads > block_threads:
                raise VerifyException(
                    f"a partial barrier over {threads} threads in a block of "
                    f"{block_threads} threads"
                )

    def print(self, printer: Printer) -> None:
        self.print_int_properties(printer)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> BarrierOp:
        op = cls(**cls.parse_int_properties(parser, leading_comma=False))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class FenceProxyAsyncOp(IRDLOperation):
    """``fence.proxy.async.shared::cta``, executed by every thread that reaches it.

    Bulk copies and their mbarrier ``complete_tx`` access shared memory through the
    *async proxy*; ordinary loads and stores (and ``mbarrier.init``) through the
    *generic proxy*.  A thread's generic accesses of shared bytes are ordered before
    an async-proxy access of the same bytes only by a proxy fence of that thread after
    them, followed by whatever orders the thread before the async access (a barrier
    before thread 0 issues the bulk copy).  Only sm_90 has the instruction."""

    name = "pipeline.fence_proxy_async"
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        kernel = self.parent_op()
        while kernel is not None and not isinstance(kernel, FuncOp):
            kernel = kernel.parent_op()
        if kernel is None:
            raise VerifyException("expected inside a kernel function")
        try:
            target = target_of(kernel)
        except UnknownTarget:
            return  # the kernel's own verifier reports the target
        if not isinstance(target, CudaTarget) or not target.has_bulk_tensor_copy:
            raise VerifyException(
                f"the async proxy fence needs a target with bulk copies (sm_90); "
                f"the kernel's target is {target.name}"
            )


class MBarrierOp(IntPropertySyntax, IRDLOperation):
    """``<op> %bars[%i] [, %operand] [, key = value] : memref<N x i64, "shared">``."""

    barriers = operand_def(MemRefType)
    barrier_index = var_operand_def(IndexType)

    HAS_PARITY: ClassVar[bool] = False

    @property
    def barrier_slot(self) -> SSAValue:
        return self.barrier_index[0]

    def verify_(self) -> None:
        if len(self.barrier_index) != 1:
            raise VerifyException("expected one mbarrier index, e.g. %bars[%i]")
        _verify_mbarrier_slot(self.barriers, self.barrier_index[0])
        for name in self.INT_PROPERTIES:
            value = self.int_property(name)
            if value is not None and value <= 0:
                raise VerifyException(f"{name} must be positive, got {value}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_region_operand(printer, self.barriers, self.barrier_index)
        if self.HAS_PARITY:
            printer.print_string(", ")
            printer.print_operand(self.parity)
        if any(self.int_property(name) is not None for name in self.INT_PROPERTIES):
            printer.print_string(",")
        self.print_int_properties(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.barriers.type}")

    @classmethod
    def parse(cls, parser: Parser):
        pos = parser.pos
        bars = parse_region_operand(parser)
        parity = None
        if cls.HAS_PARITY:
            parser.parse_punctuation(",")
            parity = parser.parse_operand(IndexType())
        props = cls.parse_int_properties(parser, leading_comma=True)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        barriers, index = resolve_region_operand(parser, bars, parser.parse_type())
        if len(index) != 1:
            parser.raise_error("expected one mbarrier index, e.g. %bars[%i]", pos)
        extra = () if parity is None else (parity,)
        op = cls(barriers, index[0], *extra, **props)
        op.attributes |= attrs
        return op


@irdl_op_definition
class MBarrierInitOp(MBarrierOp):
    """Initialize an mbarrier slot for ``arrivals`` arrivals per phase (phase 0)."""

    name = "pipeline.mbarrier_init"
    arrivals = prop_def(IntegerAttr[IntegerType])
    INT_PROPERTIES: ClassVar = ("arrivals",)

    def __init__(self, barriers: SSAValue, index: SSAValue, *, arrivals: int):
        super().__init__(
            operands=[barriers, [index]],
            properties={"arrivals": IntegerAttr(arrivals, i64)},
        )


@irdl_op_definition
class MBarrierArriveOp(MBarrierOp):
    """One arrival on the current phase of an mbarrier slot; with ``threads = N`` each
    of the block's first N threads arrives once, after its own accesses (a
    warp-specialized ring's consumers release a slot so: the slot is initialized for
    N arrivals)."""

    name = "pipeline.mbarrier_arrive"
    threads = opt_prop_def(IntegerAttr[IntegerType])
    INT_PROPERTIES: ClassVar = ("threads",)

    def __init__(self, barriers: SSAValue, index: SSAValue, *, threads: int | None = None):
        props = {} if threads is None else {"threads": IntegerAttr(threads, i64)}
        super().__init__(operands=[barriers, [index]], properties=props)

    @property
    def arriving_threads(self) -> int | None:
        """How many threads arrive (None: one, the block's thread 0)."""
        return self.int_property("threads")


@irdl_op_definition
class MBarrierArriveExpectTxOp(MBarrierOp):
    """One arrival that also expects ``bytes`` transaction bytes (from bulk copies)
    before the current phase can complete."""

    name = "pipeline.mbarrier_arrive_expect_tx"
    bytes = prop_def(IntegerAttr[IntegerType])
    INT_PROPERTIES: ClassVar = ("bytes",)

    def __init__(self, barriers: SSAValue, index: SSAValue, *, bytes: int):
        super().__init__(
            operands=[barriers, [index]], properties={"bytes": IntegerAttr(bytes, i64)}
        )


class MBarrierWaitOp(MBarrierOp):
    """Block until the phase with parity ``%parity`` (0 or 1) of the slot completed."""

    # Redeclared so that the operand order is barriers, index, parity.
    barriers = operand_def(MemRefType)
    barrier_index = var_operand_def(IndexType)
    parity = operand_def(IndexType)
    HAS_PARITY: ClassVar = True

    def __init__(self, barriers: SSAValue, index: SSAValue, parity: SSAValue):
        super().__init__(operands=[barriers, [index], parity])

    def verify_(self) -> None:
        super().verify_()
        value = constant_index(self.parity)
        if value is not None and value not in (0, 1):
            raise VerifyException(f"parity must be 0 or 1, got {value}")


@irdl_op_definition
class MBarrierWaitParityOp(MBarrierWaitOp):
    """Parity wait (``mbarrier.try_wait.parity`` loop, sm_90)."""

    name = "pipeline.mbarrier_wait_parity"


@irdl_op_definition
class MBarrierTestWaitOp(MBarrierWaitOp):
    """Parity wait polled with ``mbarrier.test_wait`` (sm_80); same semantics."""

    name = "pipeline.mbarrier_test_wait"


PIPELINE_SYNC_OPS: list[type[IRDLOperation]] = [
    AsyncCopyOp,
    BulkCopyOp,
    CommitGroupOp,
    WaitGroupOp,
    BarrierOp,
    FenceProxyAsyncOp,
    MBarrierInitOp,
    MBarrierArriveOp,
    MBarrierArriveExpectTxOp,
    MBarrierWaitParityOp,
    MBarrierTestWaitOp,
]
PIPELINE_SYNC_TYPES: list[type[ParametrizedAttribute | TypeAttribute]] = [TokenType]

MBARRIER_WAIT_OPS = (MBarrierWaitParityOp, MBarrierTestWaitOp)


# --------------------------------------------------------------------------- queries

# Ops that arrive on an mbarrier phase (a bulk copy arrives with its bytes).
ARRIVING_OPS = (MBarrierArriveOp, MBarrierArriveExpectTxOp, BulkCopyOp)


def mbarrier_operands(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    """``(barrier array, slot index)`` of an op that touches an mbarrier, else None."""
    if isinstance(op, MBarrierOp | BulkCopyOp) and len(op.barrier_index) == 1:
        return op.barriers, op.barrier_index[0]
    return None
