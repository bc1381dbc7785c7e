"""The ``pipeline`` dialect: the software-pipelined loop and its annotations.

Input form (what a user writes, TileLang-style)::

    pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
      ...
    }
    pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 1] order = [0, 1, 2] { ... }

Canonical form (after ``pipeline-planning``): the loop records its ``depth`` and every
*statement* of the body carries ``pipeline.stage`` and ``pipeline.order`` attributes.

A statement is a direct child of the loop body that has memory effects.  Pure scalar
ops (``arith``, index math) are replayable and never take a stage/order slot, so the
annotation arrays are aligned with the statements only -- the chapter's rule "array
length == number of side-effecting statements".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, i64
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    ensure_terminator,
    is_side_effect_free,
)
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.tile_syntax import parse_i64

# tilepipe's limit on a loop's pipeline depth (num_stages, depth, max stage + 1): the
# schedule peels depth - 1 iterations into a prologue and an epilogue and gives a
# buffer up to depth versions, so compile time and IR size grow with it; a stated
# limit is better than a compiler that unrolls 2^62 iterations.  Real pipelines use
# a handful of stages.
MAX_PIPELINE_DEPTH = 64

STAGE_ATTR = "pipeline.stage"
ORDER_ATTR = "pipeline.order"


@irdl_op_definition
class YieldOp(IRDLOperation):
    name = "pipeline.yield"
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(ForOp)))
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class ForOp(IRDLOperation):
    """A loop whose iterations are to be software pipelined."""

    name = "pipeline.for"
    lb = operand_def(IndexType)
    ub = operand_def(IndexType)
    step = operand_def(IndexType)
    num_stages = opt_prop_def(IntegerAttr)
    stage = opt_prop_def(DenseArrayBase.constr(i64))
    order = opt_prop_def(DenseArrayBase.constr(i64))
    depth = opt_prop_def(IntegerAttr)
    body = region_def("single_block")
    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    ANNOTATIONS: ClassVar = ("num_stages", "stage", "order", "depth")

    def __init__(
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        body: Region | Block | Sequence[Operation],
        *,
        num_stages: int | None = None,
        stage: Sequence[int] | None = None,
        order: Sequence[int] | None = None,
        depth: int | None = None,
    ):
        if isinstance(body, Block):
            body = Region(body)
        elif not isinstance(body, Region):
            body = Region(Block(body, arg_types=[IndexType()]))
        props: dict[str, Attribute] = {}
        if num_stages is not None:
            props["num_stages"] = IntegerAttr(num_stages, i64)
        if stage is not None:
            props["stage"] = DenseArrayBase.from_list(i64, stage)
        if order is not None:
            props["order"] = DenseArrayBase.from_list(i64, order)
        if depth is not None:
            props["depth"] = IntegerAttr(depth, i64)
        super().__init__(operands=[lb, ub, step], regions=[body], properties=props)

    # -- accessors

    @property
    def induction_var(self) -> SSAValue:
        return self.body.block.args[0]

    def statements(self) -> list[Operation]:
        """The side-effecting direct children of the body, in program order."""
        return pipeline_statements(self.body.block)

    def int_annotation(self, name: str) -> int | None:
        attr = getattr(self, name)
        return None if attr is None else attr.value.data

    def array_annotation(self, name: str) -> tuple[int, ...] | None:
        attr = getattr(self, name)
        return None if attr is None else tuple(attr.get_values())

    # -- verification

    def verify_(self) -> None:
        block = self.body.block
        if len(block.args) != 1 or not isinstance(block.args[0].type, IndexType):
            raise VerifyException(
                "body must have exactly one index argument (the induction variable)"
            )
        for op in self.body.walk():
            if op is not self and isinstance(op, ForOp):
                raise VerifyException(
                    "nested pipelined loops are not supported; pipeline the inner "
                    "loop or the outer one, not both"
                )
        num_stages = self.int_annotation("num_stages")
        if num_stages is not None and num_stages < 0:
            raise VerifyException(f"num_stages must be >= 0, got {num_stages}")
        depth = self.int_annotation("depth")
        if depth is not None and depth < 1:
            raise VerifyException(f"depth must be >= 1, got {depth}")
        for name, value in (("num_stages", num_stages), ("depth", depth)):
            if value is not None and value > MAX_PIPELINE_DEPTH:
                raise VerifyException(
                    f"{name} {value} exceeds tilepipe's limit of {MAX_PIPELINE_DEPTH} stages"
                )
        statements = self.statements()
        stage = self.array_annotation("stage")
        order = self.array_annotation("order")
        if (stage is None) != (order is None):
            raise VerifyException("'stage' and 'order' must be given together")
        if stage is not None and order is not None:
            if any(s < 0 for s in stage):
                raise VerifyException(f"stages must be non-negative, got {list(stage)}")
            if any(s >= MAX_PIPELINE_DEPTH for s in stage):
                raise VerifyException(
                    f"stage {max(stage)} exceeds tilepipe's limit of {MAX_PIPELINE_DEPTH} "
                    f"stages (0 to {MAX_PIPELINE_DEPTH - 1})"
                )
            for name, array in (("stage", stage), ("order", order)):
                if len(array) != len(statements):
                    raise VerifyException(
                        f"'{name}' has {len(array)} entries but the body has "
                        f"{len(statements)} side-effecting statements (pure scalar "
                        "ops take no slot)"
                    )
        self._verify_per_op_annotations(statements)

    def _verify_per_op_annotations(self, statements: list[Operation]) -> None:
        annotated = [op for op in statements if STAGE_ATTR in op.attributes]
        for op in statements:
            has_stage = STAGE_ATTR in op.attributes
            if has_stage != (ORDER_ATTR in op.attributes):
                raise VerifyException(
                    f"'{op.name}' must carry both {STAGE_ATTR} and {ORDER_ATTR}"
                )
        if annotated and len(annotated) != len(statements):
            raise VerifyException(
                f"{len(annotated)} of {len(statements)} statements carry "
                f"{STAGE_ATTR}; annotate all of them or none"
            )
        for op in annotated:
            stage = op_stage(op)
            if stage is None or stage < 0:
                raise VerifyException(
                    f"'{op.name}' has an invalid {STAGE_ATTR} (must be an integer >= 0)"
                )
            if stage >= MAX_PIPELINE_DEPTH:
                raise VerifyException(
                    f"'{op.name}' has {STAGE_ATTR} {stage}, over tilepipe's limit of "
                    f"{MAX_PIPELINE_DEPTH} stages (0 to {MAX_PIPELINE_DEPTH - 1})"
                )
            if op_order(op) is None:
                raise VerifyException(f"'{op.name}' has an invalid {ORDER_ATTR}")

    # -- text

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.induction_var)
        printer.print_string(" = ")
        printer.print_ssa_value(self.lb)
        printer.print_string(" to ")
        printer.print_ssa_value(self.ub)
        printer.print_string(" step ")
        printer.print_ssa_value(self.step)
        for name in self.ANNOTATIONS:
            if name in ("stage", "order"):
                values = self.array_annotation(name)
                if values is not None:
                    printer.print_string(
                        f" {name} = [{', '.join(str(v) for v in values)}]"
                    )
            else:
                value = self.int_annotation(name)
                if value is not None:
                    printer.print_string(f" {name} = {value}")
        printer.print_string(" ")
        printer.print_region(
            self.body, print_entry_block_args=False, print_block_terminators=False
        )
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        indvar = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_operand(IndexType())
        parser.parse_keyword("to")
        ub = parser.parse_operand(IndexType())
        parser.parse_keyword("step")
        step = parser.parse_operand(IndexType())
        annotations: dict[str, object] = {}
        while (name := parser.parse_optional_keyword_in(cls.ANNOTATIONS)) is not None:
            if name in annotations:
                parser.raise_error(f"'{name}' given twice")
            parser.parse_punctuation("=")
            if name in ("stage", "order"):
                annotations[name] = parser.parse_comma_separated_list(
                    Parser.Delimiter.SQUARE, lambda: parse_i64(parser, f"{name} value")
                )
            else:
                annotations[name] = parse_i64(parser, name)
        body = parser.parse_region((indvar.resolve(IndexType()),))
        attrs = parser.parse_optional_attr_dict()
        op = cls(lb, ub, step, body, **annotations)  # type: ignore[arg-type]
        op.attributes |= attrs
        for trait in op.get_traits_of_type(SingleBlockImplicitTerminator):
            ensure_terminator(op, trait)
        return op


def pipeline_statements(block: Block) -> list[Operation]:
    """Side-effecting ops of a loop body: the ones that take stage/order slots."""
    return [
        op
        for op in block.ops
        if not op.has_trait(IsTerminator) and not is_side_effect_free(op)
    ]


def _int_attr(op: Operation, name: str) -> int | None:
    attr = op.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None


def op_stage(op: Operation) -> int | None:
    return _int_attr(op, STAGE_ATTR)


def op_order(op: Operation) -> int | None:
    return _int_attr(op, ORDER_ATTR)


def set_stage_order(op: Operation, stage: int, order: int) -> None:
    op.attributes[STAGE_ATTR] = IntegerAttr(stage, i64)
    op.attributes[ORDER_ATTR] = IntegerAttr(order, i64)


PIPELINE_LOOP_OPS: list[type[IRDLOperation]] = [ForOp, YieldOp]


def _all_pipeline_ops() -> list[type[IRDLOperation]]:
    # The scheduled-level async/sync ops live in their own module.
    from tilepipe.dialects.pipeline_sync import PIPELINE_SYNC_OPS, PIPELINE_SYNC_TYPES
    from tilepipe.dialects.pipeline_ws import PIPELINE_WS_OPS

    return PIPELINE_LOOP_OPS + PIPELINE_SYNC_OPS + PIPELINE_WS_OPS, PIPELINE_SYNC_TYPES  # type: ignore[return-value]


def _make_dialect() -> Dialect:
    ops, types = _all_pipeline_ops()
    return Dialect("pipeline", ops, types)


Pipeline = _make_dialect()
