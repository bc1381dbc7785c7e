"""Synchronization ops of the ``ascend`` emission dialect.

::

    ascend.set_flag[MTE2, V] 3            // SetFlag<HardEvent::MTE2_V>(3)
    ascend.wait_flag[MTE2, V] %id         // WaitFlag<HardEvent::MTE2_V>(id), id : index
    ascend.pipe_barrier[MTE3]             // PipeBarrier<PIPE_MTE3>()
    ascend.cross_core_set_flag[2, FIX] 5  // CrossCoreSetFlag<2, PIPE_FIX>(5)
    ascend.cross_core_wait_flag[2, V] 5   // CrossCoreWaitFlag<2, PIPE_V>(5)
    ascend.get_buf[MTE2] 9 non_block      // lock-pool slot 9 taken by MTE2 (no stall)
    ascend.rls_buf[V] %b block            // lock-pool slot released by V

In a mixed cube + vector kernel every sync op runs on one core.  Its pipes usually say
which (MTE1, M and FIX are the cube's, V and MTE3 the vector core's); where they do not
(MTE2, S and ALL exist on both) the discardable attribute ``ascend.core = "cube"`` or
``"vector"`` names it, see :func:`sync_op_core`.

An event/flag/slot id is either static (an integer, checked against the target's
limits by the verifier) or dynamic (an ``index`` SSA value, e.g. ``iter mod versions +
base`` for a multi-buffer ring; ``ascend-flag-budget`` proves its range).  Limits come
from the kernel's Ascend target record (``tile.target``).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tilepipe.core.targets import ASCEND_910B, AscendTarget, UnknownTarget, target_of

from tilepipe.dialects.ascend_pipes import (
    CROSS_CORE_MODES,
    Core,
    HardEvent,
    Pipe,
    PipeAttr,
    hard_event_problem,
    pipe_core,
)
from tilepipe.dialects.tile_syntax import parse_i64

# Discardable attribute naming the core of an op (tile ops: set by ascend-resolve-core;
# sync ops: set by ascend-insert-sync where the pipes leave the core open).
CORE_ATTR = "ascend.core"


def ascend_target_of(op: Operation) -> AscendTarget:
    """The Ascend target of the kernel enclosing ``op`` (910B outside any kernel)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    if parent is None or "tile.target" not in parent.attributes:
        return ASCEND_910B
    try:
        target = target_of(parent)
    except UnknownTarget as err:
        raise VerifyException(str(err)) from err
    if not isinstance(target, AscendTarget):
        raise VerifyException(
            f"ascend ops need an Ascend target, the kernel targets '{target.name}'"
        )
    return target


def _parse_pipe(parser: Parser) -> Pipe:
    return parser.parse_str_enum(Pipe)


def _pipes_of(op: Operation) -> tuple[Pipe, ...]:
    if isinstance(op, FlagOp):
        return (op.hard_event.producer, op.hard_event.consumer)
    if isinstance(op, PipeBarrierOp | CrossCoreFlagOp | LockOp):
        return (op.pipe.data,)
    return ()


def sync_op_core(op: Operation) -> Core | None:
    """The core that runs a sync op: its ``ascend.core`` attribute, else the core its
    pipes live on; None when neither says (the kernel then has a single core)."""
    attr = op.attributes.get(CORE_ATTR)
    if isinstance(attr, StringAttr):
        return Core(attr.data)
    cores = {pipe_core(pipe) for pipe in _pipes_of(op)} - {None}
    return cores.pop() if len(cores) == 1 else None


def verify_core_attribute(op: Operation) -> None:
    """``ascend.core`` must name a core, and the core of the op's pipes if they have one."""
    attr = op.attributes.get(CORE_ATTR)
    if attr is None:
        return
    names = [core.value for core in Core]
    if not isinstance(attr, StringAttr) or attr.data not in names:
        raise VerifyException(f"{CORE_ATTR} must be one of {', '.join(names)}")
    for pipe in _pipes_of(op):
        if (core := pipe_core(pipe)) is not None and core.value != attr.data:
            raise VerifyException(
                f"PIPE_{pipe.value} runs on the {core.value} core, not the {attr.data} core"
            )


class IdOperandOp(IRDLOperation):
    """An op addressing a numbered resource: a static id or a dynamic ``index``."""

    static_id = opt_prop_def(IntegerAttr, prop_name="id")
    dynamic_id = opt_operand_def(IndexType)

    ID_KIND: ClassVar[str] = "id"

    def __init__(self, id: int | SSAValue | Operation, properties: dict):
        if isinstance(id, int):
            properties["id"] = IntegerAttr(id, i64)
            operands: list = [[]]
        else:
            operands = [[id]]
        super().__init__(operands=operands, properties=properties)

    @property
    def id(self) -> int | SSAValue:
        if self.static_id is not None:
            return self.static_id.value.data
        assert self.dynamic_id is not None
        return self.dynamic_id

    def id_limit(self) -> int:
        raise NotImplementedError

    def verify_id(self) -> None:
        if (self.static_id is None) == (self.dynamic_id is None):
            raise VerifyException(f"needs exactly one {self.ID_KIND}, static or dynamic")
        if self.static_id is not None:
            value, limit = self.static_id.value.data, self.id_limit()
            if not 0 <= value < limit:
                raise VerifyException(
                    f"{self.ID_KIND} {value} is out of range [0, {limit}) on "
                    f"{ascend_target_of(self).name}"
                )

    @staticmethod
    def parse_id(parser: Parser) -> int | SSAValue:
        if (operand := parser.parse_optional_operand(IndexType())) is not None:
            return operand
        return parse_i64(parser, "id")

    def print_id(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.static_id is not None:
            printer.print_string(str(self.static_id.value.data))
        else:
            printer.print_operand(self.dynamic_id)


class FlagOp(IdOperandOp):
    """``set_flag``/``wait_flag`` on a hard event (producer pipe, consumer pipe)."""

    producer = prop_def(PipeAttr)
    consumer = prop_def(PipeAttr)
    ID_KIND: ClassVar = "event id"

    def __init__(self, event: HardEvent, id: int | SSAValue | Operation):
        super().__init__(
            id, {"producer": PipeAttr(event.producer), "consumer": PipeAttr(event.consumer)}
        )

    @property
    def hard_event(self) -> HardEvent:
        return HardEvent(self.producer.data, self.consumer.data)

    def id_limit(self) -> int:
        return ascend_target_of(self).intra_core_event_ids

    def verify_(self) -> None:
        if (problem := hard_event_problem(self.hard_event)) is not None:
            raise VerifyException(problem)
        self.verify_id()
        verify_core_attribute(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(f"[{self.producer.data.value}, {self.consumer.data.value}]")
        self.print_id(printer)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("[")
        producer = _parse_pipe(parser)
        parser.parse_punctuation(",")
        consumer = _parse_pipe(parser)
        parser.parse_punctuation("]")
        op = cls(HardEvent(producer, consumer), cls.parse_id(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class SetFlagOp(FlagOp):
    """The producer pipe raises the event's bit once its earlier work is done."""

    name = "ascend.set_flag"


@irdl_op_definition
class WaitFlagOp(FlagOp):
    """The consumer pipe stalls until the event's bit is set, then clears it."""

    name = "ascend.wait_flag"


@irdl_op_definition
class PipeBarrierOp(IRDLOperation):
    """Later instructions of ``pipe`` wait for its earlier ones (ALL: every pipe)."""

    name = "ascend.pipe_barrier"
    pipe = prop_def(PipeAttr)
    assembly_format = "`[` $pipe `]` attr-dict"

    def __init__(self, pipe: Pipe):
        super().__init__(properties={"pipe": PipeAttr(pipe)})

    def verify_(self) -> None:
        if self.pipe.data == Pipe.S:
            raise VerifyException(
                "PIPE_S cannot be barriered (scalar order is kept by the hardware; "
                "PipeBarrier<PIPE_S> is a hardware error)"
            )
        verify_core_attribute(self)


class CrossCoreFlagOp(IdOperandOp):
    """A cross-core (AIC <-> AIV) flag: a counter, set at most 16 times in a row."""

    mode = prop_def(IntegerAttr)
    pipe = prop_def(PipeAttr)
    ID_KIND: ClassVar = "cross-core flag id"

    def __init__(self, mode: int, pipe: Pipe, id: int | SSAValue | Operation):
        super().__init__(id, {"mode": IntegerAttr(mode, i64), "pipe": PipeAttr(pipe)})

    @property
    def mode_value(self) -> int:
        return self.mode.value.data

    def id_limit(self) -> int:
        return ascend_target_of(self).cross_core_flags

    def verify_(self) -> None:
        if self.mode_value not in CROSS_CORE_MODES:
            raise VerifyException(
                f"cross-core mode {self.mode_value} is not one of "
                f"{', '.join(map(str, CROSS_CORE_MODES))}"
            )
        if self.pipe.data == Pipe.ALL:
            raise VerifyException("a cross-core flag needs a pipe, not PIPE_ALL")
        self.verify_id()
        verify_core_attribute(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(f"[{self.mode_value}, {self.pipe.data.value}]")
        self.print_id(printer)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("[")
        mode = parse_i64(parser, "mode")
        parser.parse_punctuation(",")
        pipe = _parse_pipe(parser)
        parser.parse_punctuation("]")
        op = cls(mode, pipe, cls.parse_id(parser))
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class CrossCoreSetFlagOp(CrossCoreFlagOp):
    name = "ascend.cross_core_set_flag"


@irdl_op_definition
class CrossCoreWaitFlagOp(CrossCoreFlagOp):
    name = "ascend.cross_core_wait_flag"


class LockOp(IdOperandOp):
    """A slot of the shared lock pool that spilled flags fall back to.

    Requests on one slot are granted in issue order: a blocking request stalls its
    pipe until every earlier holder released the slot; a non-blocking one does not."""

    pipe = prop_def(PipeAttr)
    blocking = opt_prop_def(UnitAttr)
    ID_KIND: ClassVar = "lock slot"

    def __init__(self, pipe: Pipe, id: int | SSAValue | Operation, blocking: bool):
        properties: dict = {"pipe": PipeAttr(pipe)}
        if blocking:
            properties["blocking"] = UnitAttr()
        super().__init__(id, properties)

    @property
    def is_blocking(self) -> bool:
        return self.blocking is not None

    def id_limit(self) -> int:
        return ascend_target_of(self).lock_pool_slots

    def verify_(self) -> None:
        if self.pipe.data == Pipe.ALL:
            raise VerifyException("a lock is taken by one pipe, not PIPE_ALL")
        self.verify_id()
        verify_core_attribute(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(f"[{self.pipe.data.value}]")
        self.print_id(printer)
        printer.print_string(" block" if self.is_blocking else " non_block")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_punctuation("[")
        pipe = _parse_pipe(parser)
        parser.parse_punctuation("]")
        id = cls.parse_id(parser)
        if parser.parse_optional_keyword("block") is not None:
            blocking = True
        else:
            parser.parse_keyword("non_block")
            blocking = False
        op = cls(pipe, id, blocking)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class GetBufOp(LockOp):
    """Take a lock-pool slot on ``pipe`` (a spilled set: non-blocking on the
    producer; a spilled wait: blocking on the consumer)."""

    name = "ascend.get_buf"


@irdl_op_definition
class RlsBufOp(LockOp):
    """Release a lock-pool slot once ``pipe``'s earlier work is done."""

    name = "ascend.rls_buf"


ASCEND_SYNC_OPS: list[type[IRDLOperation]] = [
    SetFlagOp,
    WaitFlagOp,
    PipeBarrierOp,
    CrossCoreSetFlagOp,
    CrossCoreWaitFlagOp,
    GetBufOp,
    RlsBufOp,
]
