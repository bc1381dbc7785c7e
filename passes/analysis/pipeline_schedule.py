"""The stage/order schedule of a ``pipeline.for``, read from whichever form it has.

A loop carries its schedule either as TileLang-style arrays on the loop
(``stage = [..] order = [..]``, aligned with the side-effecting statements) or, after
``pipeline-planning``, as per-op ``pipeline.stage``/``pipeline.order`` attributes.
Every pipeline pass reads it through :func:`read_schedule` so that the two forms never
diverge.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from xdsl.ir import Operation

from tilepipe.dialects.pipeline import ForOp, op_order, op_stage


@dataclass
class LoopSchedule:
    """Stage and order of every statement of one loop, plus its pipeline depth."""

    loop: ForOp
    statements: list[Operation]
    stages: list[int]
    orders: list[int]
    depth: int

    @cached_property
    def _index(self) -> dict[Operation, int]:
        return {op: i for i, op in enumerate(self.statements)}

    def stage(self, op: Operation) -> int:
        return self.stages[self._index[op]]

    def order(self, op: Operation) -> int:
        return self.orders[self._index[op]]

    @property
    def max_stage(self) -> int:
        return max(self.stages, default=0)

    def emission_order(self) -> list[Operation]:
        """Statements sorted by order (the issue order inside one time slot)."""
        return sorted(self.statements, key=self.order)

    def describe(self, op: Operation) -> str:
        return f"'{op.name}' (stage {self.stage(op)}, order {self.order(op)})"


def has_schedule(loop: ForOp) -> bool:
    return loop.stage is not None or any(
        op_stage(op) is not None for op in loop.statements()
    )


def read_schedule(loop: ForOp) -> LoopSchedule | None:
    """The loop's schedule (arrays win over per-op attributes), or None when it only
    has ``num_stages`` (not planned yet) or nothing."""
    statements = loop.statements()
    stages = loop.array_annotation("stage")
    orders = loop.array_annotation("order")
    if stages is None or orders is None:
        if not statements:
            planned = loop.int_annotation("depth") is not None
            return LoopSchedule(loop, [], [], [], pipeline_depth(loop, [])) if planned else None
        if op_stage(statements[0]) is None:
            return None
        stages = tuple(op_stage(op) for op in statements)  # type: ignore[misc]
        orders = tuple(op_order(op) for op in statements)  # type: ignore[misc]
    return LoopSchedule(
        loop, statements, list(stages), list(orders), pipeline_depth(loop, stages)
    )


def pipeline_depth(loop: ForOp, stages: tuple[int, ...] | list[int]) -> int:
    """The depth (docs/pipelining.md): ``num_stages``, else the recorded ``depth``, else
    ``max(stage) + 1``.  The depth sizes per-stage barrier rings; it is not the number
    of time slots of the modulo schedule (``max(stage) + 1``)."""
    for name in ("num_stages", "depth"):
        value = loop.int_annotation(name)
        if value is not None and value >= 1:
            return value
    return max(stages, default=0) + 1
