"""The scalar unit of an Ascend core: runs the control flow, issues pipe instructions.

The scalar unit walks an ``ascend``-dialect kernel in program order, evaluates its
index arithmetic, ``scf`` control flow and scalar cells (0-d ``memref.alloca``, such
as the epoch counters of the ``counter`` index mode), and issues every other op as an
:class:`Instruction` to the queue of its pipe -- with its regions and ids resolved to
integers.  :mod:`tilepipe.semantics.ascend.sim` then executes the queues.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue

from tilepipe.dialects import ascend
from tilepipe.dialects.ascend_pipes import Core, HardEvent, Pipe
from tilepipe.dialects.ascend_sync import (
    CrossCoreFlagOp,
    CrossCoreSetFlagOp,
    FlagOp,
    GetBufOp,
    LockOp,
    PipeBarrierOp,
    SetFlagOp,
    sync_op_core,
)
from tilepipe.dialects.tile import BlockIdOp, GridDimsOp
from tilepipe.passes.analysis.grid import INDEX_BINARY_OPS

from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.work_limit import WorkLimit, trip_count


class Kind(Enum):
    DATA = "data"
    SET = "set"
    WAIT = "wait"
    BARRIER = "barrier"
    GET = "get"
    RLS = "rls"
    CROSS_SET = "cross_set"
    CROSS_WAIT = "cross_wait"

    @property
    def is_sync(self) -> bool:
        return self != Kind.DATA


@dataclass(frozen=True)
class Box:
    """The region one data instruction touches in one buffer."""

    buffer: SSAValue
    starts: tuple[int, ...]
    sizes: tuple[int, ...]
    reads: bool
    writes: bool
    role: str

    def overlaps(self, other: Box) -> bool:
        return self.buffer is other.buffer and all(
            a < b + n and b < a + m
            for a, m, b, n in zip(self.starts, self.sizes, other.starts, other.sizes)
        )

    @property
    def slices(self) -> tuple[slice, ...]:
        return tuple(slice(s, s + n) for s, n in zip(self.starts, self.sizes))


@dataclass(eq=False)
class Instruction:
    index: int  # issue order
    op: Operation
    kind: Kind
    core: Core
    pipe: Pipe
    boxes: tuple[Box, ...] = ()
    id: int = 0  # event id, cross-core flag id or lock slot
    scalars: dict[SSAValue, object] = field(default_factory=dict)
    event: HardEvent | None = None  # of a set_flag / wait_flag

    def describe(self) -> str:
        what = self.op.name
        if isinstance(self.op, FlagOp):
            what += f" {self.event} id {self.id}"
        elif self.kind in (Kind.GET, Kind.RLS, Kind.CROSS_SET, Kind.CROSS_WAIT):
            what += f" [{self.pipe.value}] {self.id}"
        return f"#{self.index} {what}"


def kernel_core(kernel: FuncOp) -> Core | None:
    """The core of a single-core kernel (the one its tile ops run on); None for a
    mixed cube + vector kernel."""
    cores = {op.core for op in kernel.walk() if isinstance(op, ascend.AscendTileOp)}
    if len(cores) > 1:
        return None
    return cores.pop() if cores else Core.VECTOR


_ROLES: dict[type[Operation], str] = {}
_SCALAR_BINARY_OPS = {
    **INDEX_BINARY_OPS,
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
}


def _role_of(op: Operation) -> str:
    """How the scalar unit treats ops of ``op``'s class: evaluated, skipped or issued."""
    if isinstance(op, ReturnOp | scf.YieldOp | memref.AllocOp | memref.DeallocOp | GridDimsOp):
        return "skip"  # grid dims: evaluated before the launch
    if isinstance(op, scf.ForOp):
        return "for"
    if isinstance(op, scf.IfOp):
        return "if"
    if isinstance(op, memref.DimOp):
        return "dim"
    if isinstance(op, BlockIdOp):
        return "block_id"
    if op.dialect_name() == "arith":
        return "arith"
    if isinstance(op, memref.AllocaOp | memref.LoadOp | memref.StoreOp):
        return "cell"
    return "issue"


class ScalarUnit:
    """Evaluates the kernel's scalar code and collects the issued instructions."""

    def __init__(
        self, kernel: FuncOp, scalar_args: dict[SSAValue, int], block: tuple[int, int, int] = (0, 0, 0),
        shapes: dict[SSAValue, tuple[int, ...]] | None = None,
        work: WorkLimit | None = None,
    ):
        self.kernel = kernel
        self.work = work or WorkLimit()
        self.shapes = shapes or {}  # of the GM arguments (``memref.dim``)
        self.block = block  # the (x, y, z) index of the block this scalar unit runs
        self.values: dict[SSAValue, object] = dict(scalar_args)
        self.cells: dict[SSAValue, object] = {}  # 0-d memref.alloca -> its value
        self.instructions: list[Instruction] = []
        self.default_core = kernel_core(kernel)
        # What a data or sync op is, apart from its operands' values: the IR does not
        # change during a run, and a loop issues the same op many times.
        self._data_ops: dict[Operation, tuple] = {}
        self._sync_ops: dict[Operation, tuple] = {}

    def run(self) -> list[Instruction]:
        self._block(self.kernel.body.block)
        return self.instructions

    def value(self, value: SSAValue) -> int:
        if value not in self.values:
            raise KernelError(value.owner, "uses a value the scalar unit has not computed")
        return self.values[value]  # type: ignore[return-value]

    def _block(self, block: Block) -> None:
        for op in block.ops:
            self._op(op)

    def _op(self, op: Operation) -> None:
        # What the scalar unit does with an op depends on its class only: decided once
        # per class, as a run walks the same few classes tens of thousands of times.
        role = _ROLES.get(type(op))
        if role is None:
            role = _ROLES[type(op)] = _role_of(op)
        if role == "skip":
            return
        if role == "for":
            assert isinstance(op, scf.ForOp)
            lb, ub, step = self.value(op.lb), self.value(op.ub), self.value(op.step)
            if step <= 0:
                raise KernelError(op, f"has a non-positive step {step}")
            if (problem := self.work.charge(trip_count(lb, ub, step))) is not None:
                raise KernelError(op, problem)
            for iv in range(lb, ub, step):
                self.values[op.body.block.args[0]] = iv
                self._block(op.body.block)
            return
        if role == "if":
            assert isinstance(op, scf.IfOp)
            taken = op.true_region if self.value(op.cond) else op.false_region
            if taken.blocks:
                self._block(taken.block)
            return
        if role == "dim":
            assert isinstance(op, memref.DimOp)
            shape = self.shapes.get(op.source)
            if shape is None:
                raise KernelError(op, "reads the size of a buffer that is not an argument")
            self.values[op.result] = shape[self.value(op.index)]
            return
        if role == "block_id":
            assert isinstance(op, BlockIdOp)
            self.values[op.result] = self.block["xyz".index(op.dimension.data)]
            return
        if role == "arith":
            self.values[op.results[0]] = self._arith(op)
            return
        if role == "cell":
            return self._scalar_cell(op)  # type: ignore[arg-type]
        self.instructions.append(self._issue(op))

    def _scalar_cell(self, op: memref.AllocaOp | memref.LoadOp | memref.StoreOp) -> None:
        cell = op.memref
        if not isinstance(cell.type, MemRefType) or cell.type.get_shape():
            raise KernelError(op, "the scalar unit only holds 0-d scalar cells")
        if isinstance(op, memref.AllocaOp):
            self.cells[cell] = None
        elif cell not in self.cells:
            raise KernelError(op, "uses a scalar cell the scalar unit has not allocated")
        elif isinstance(op, memref.LoadOp):
            if self.cells[cell] is None:
                raise KernelError(op, "reads a scalar cell before any store")
            self.values[op.res] = self.cells[cell]
        else:
            self.cells[cell] = self.value(op.value)

    def _arith(self, op: Operation) -> object:
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            if isinstance(attr, IntegerAttr):
                if attr.type == IntegerType(1):
                    return bool(attr.value.data)
                return attr.value.data
            return float(attr.value.data)  # type: ignore[union-attr]
        args = [self.value(v) for v in op.operands]
        if (binary := _SCALAR_BINARY_OPS.get(op.name)) is not None:
            return binary(*args)
        if isinstance(op, arith.CmpiOp):
            a, b = args
            return [a == b, a != b, a < b, a <= b, a > b, a >= b,
                    a < b, a <= b, a > b, a >= b][op.predicate.value.data]
        if isinstance(op, arith.SelectOp):
            return args[1] if args[0] else args[2]
        if isinstance(op, arith.IndexCastOp):
            return args[0]
        if isinstance(op, arith.SIToFPOp):  # rounded once to the result's float type
            width = op.result.type.bitwidth  # type: ignore[attr-defined]
            return float({16: np.float16, 32: np.float32}.get(width, np.float64)(args[0]))
        raise KernelError(op, "has no scalar semantics in the pipe simulator")

    def _sync_core(self, op: Operation) -> Core:
        core = sync_op_core(op) or self.default_core
        if core is None:
            raise KernelError(
                op, "runs on a pipe of both cores in a mixed kernel; name its core with "
                "ascend.core"
            )
        return core

    def _issue(self, op: Operation) -> Instruction:
        index = len(self.instructions)
        if isinstance(op, ascend.AscendTileOp):
            if (static := self._data_ops.get(op)) is None:
                scalar_operands = [v for v in op.operands if not isinstance(v.type, MemRefType)]
                static = self._data_ops[op] = (op.buffer_accesses(), scalar_operands, op.core, op.pipe)
            accesses, scalar_operands, core, pipe = static
            boxes = tuple(
                Box(
                    a.buffer,
                    tuple(self.value(o) for o in a.offsets) or (0,) * len(a.sizes),
                    a.sizes,
                    a.reads,
                    a.writes,
                    a.operand_name,
                )
                for a in accesses
            )
            scalars = {v: self.value(v) for v in scalar_operands if v in self.values}
            return Instruction(index, op, Kind.DATA, core, pipe, boxes, scalars=scalars)
        if (static := self._sync_ops.get(op)) is None:
            static = self._sync_ops[op] = self._sync_kind(op)
        kind, core, pipe, event, static_id = static
        ident = static_id if static_id is not None else self.value(op.id)  # type: ignore[attr-defined]
        return Instruction(index, op, kind, core, pipe, id=ident, event=event)

    def _sync_kind(self, op: Operation) -> tuple:
        """(kind, core, pipe, hard event, static id) of a sync op."""
        if isinstance(op, PipeBarrierOp):
            return Kind.BARRIER, self._sync_core(op), op.pipe.data, None, 0
        if isinstance(op, FlagOp | CrossCoreFlagOp | LockOp):
            static_id = op.id if isinstance(op.id, int) else None
            event = None
            if isinstance(op, FlagOp):
                is_set = isinstance(op, SetFlagOp)
                kind = Kind.SET if is_set else Kind.WAIT
                event = op.hard_event
                pipe = event.producer if is_set else event.consumer
            elif isinstance(op, CrossCoreFlagOp):
                kind = Kind.CROSS_SET if isinstance(op, CrossCoreSetFlagOp) else Kind.CROSS_WAIT
                pipe = op.pipe.data
            else:
                kind = Kind.GET if isinstance(op, GetBufOp) else Kind.RLS
                pipe = op.pipe.data
            return kind, self._sync_core(op), pipe, event, static_id
        raise KernelError(op, "has no pipe semantics in the pipe simulator")
