"""Emit a validated ``pipeline.for`` as a modulo-scheduled loop (docs/pipelining.md).

Statement ``s`` of iteration ``i`` runs in time slot ``i + stage(s)``; inside a slot the
statements run by ``order``.  With ``S = max(stage)`` and ``n`` iterations, the slots
are emitted as

* a **prologue**, slots ``0 .. S-1`` unrolled, each statement guarded by the bound check
  on its skewed iteration ``lb + (t - stage) * step < ub``;
* the **steady state**, an ``scf.for %k`` over slots ``S .. n-1`` without guards, where a
  statement of stage ``s`` works on ``k - s * step`` (the skew);
* an **epilogue**, slots ``n .. n+S-1`` unrolled; epilogue slot ``e`` holds the
  statements with ``stage > e`` and is guarded by "iteration ``S - e - 1`` exists", so
  that a slot the prologue already ran (``n < S``) is not run twice.

Guards and index arithmetic fold when the bounds are static, so a static loop keeps
only the statements that do run.  Pure ops of the body are replayed (cloned) for each
iteration instance that needs them; a value produced by a statement stays within its
stage (validated), and escapes a guarded group as a result of its ``scf.if``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

from tilepipe.dialects.pipeline import ORDER_ATTR, STAGE_ATTR, ForOp
from tilepipe.dialects.pipeline_sync import MBarrierWaitOp
from tilepipe.core.diagnostics import op_error
from tilepipe.passes.analysis.affine_forms import IV, VariantSymbol, affine_form
from tilepipe.passes.pipelining.barrier_expansion import BarrierExpansion
from tilepipe.passes.rewrite.index_arith import Index, IndexBuilder, static_value
from tilepipe.passes.pipelining.version_dimension import MultiBuffering
from tilepipe.passes.analysis.pipeline_schedule import LoopSchedule

ValueMap = dict[SSAValue, SSAValue]
# Given the builder of the block a statement instance is emitted into, the instance's
# iteration: (normalized iteration (k - lb) / step, induction variable value k).
IterationOf = Callable[[IndexBuilder], tuple[Index, Index]]


class ModuloScheduler:
    """Emits prologue, steady state and epilogue of one loop before it."""

    def __init__(
        self,
        schedule: LoopSchedule,
        step: int,
        multi_buffering: MultiBuffering,
        barriers: BarrierExpansion,
    ):
        self.schedule = schedule
        self.loop: ForOp = schedule.loop
        self.step = step
        self.multi_buffering = multi_buffering
        self.barriers = barriers
        base = min(schedule.stages, default=0)
        # Only stage differences matter; a schedule entirely in one stage is a
        # plain loop (TileLang leaves such a degenerate pipeline unexpanded).
        self.stage = {op: schedule.stage(op) - base for op in schedule.statements}
        self.max_stage = max(self.stage.values(), default=0)
        self.in_order = schedule.emission_order()
        self.body_ops = set(self.loop.body.block.ops)
        self.replayed: list[Operation] = []  # pure ops cloned per iteration instance

    # -- the three parts

    def emit(self, rewriter: Rewriter) -> None:
        builder = IndexBuilder(InsertPoint.before(self.loop))
        lb = _index_operand(self.loop.lb)
        ub = _index_operand(self.loop.ub)
        self._emit_prologue(builder, lb, ub)
        self._emit_steady_state(builder, lb, ub)
        self._emit_epilogue(builder, lb, ub)
        rewriter.erase_op(self.loop)
        # A replayed value may end up unused (a parity the barrier ring recomputes).
        for op in reversed(self.replayed):
            if not any(result.uses for result in op.results):
                rewriter.erase_op(op)

    def _emit_prologue(self, builder: IndexBuilder, lb: Index, ub: Index) -> None:
        for slot in range(self.max_stage):
            values: dict[int, ValueMap] = {}
            running = [op for op in self.in_order if self.stage[op] <= slot]
            for stage, group in _runs_by_stage(running, self.stage):
                iteration = slot - stage
                k = builder.add(lb, builder.mul(iteration, self.step))
                guard = builder.less_than(k, ub)
                mapping = values.setdefault(stage, {})
                self._emit_group(
                    builder, group, guard, mapping, lambda b, i=iteration, k=k: (i, k)
                )

    def _emit_steady_state(self, builder: IndexBuilder, lb: Index, ub: Index) -> None:
        start = builder.add(lb, self.max_stage * self.step)
        if (s := static_value(start)) is not None and (u := static_value(ub)) is not None:
            if s >= u:
                return
        body = Block(arg_types=[IndexType()])
        k = body.args[0]
        k.name_hint = self.loop.induction_var.name_hint
        inner = builder.nested(InsertPoint.at_end(body))
        values: dict[int, ValueMap] = {}
        for op in self.in_order:
            stage = self.stage[op]

            def iteration_of(b: IndexBuilder, stage: int = stage) -> tuple[Index, Index]:
                skewed = b.sub(k, stage * self.step)
                return b.div(b.sub(skewed, lb), self.step), skewed

            self._emit_group(inner, [op], True, values.setdefault(stage, {}), iteration_of)
        inner.insert(scf.YieldOp())
        builder.insert(
            scf.ForOp(builder.value(start), builder.value(ub), builder.value(self.step), [], body)
        )

    def _emit_epilogue(self, builder: IndexBuilder, lb: Index, ub: Index) -> None:
        if self.max_stage == 0:
            return
        trip_count = builder.max(builder.ceil_div(builder.sub(ub, lb), self.step), 0)
        for slot in range(self.max_stage):
            running = [op for op in self.in_order if self.stage[op] > slot]
            # This slot (n + slot) was already run by the prologue unless iteration
            # S - slot - 1 exists.
            last_prologue_iteration = builder.add(
                lb, builder.mul(self.max_stage - slot - 1, self.step)
            )
            guard = builder.less_than(last_prologue_iteration, ub)
            if guard is False:
                continue
            values: dict[int, ValueMap] = {}

            def emit_slot(b: IndexBuilder, slot: int = slot) -> None:
                for stage, group in _runs_by_stage(running, self.stage):

                    def iteration_of(
                        b: IndexBuilder, stage: int = stage
                    ) -> tuple[Index, Index]:
                        i = b.add(trip_count, slot - stage)
                        return i, b.add(lb, b.mul(i, self.step))

                    self._emit_group(b, group, True, values.setdefault(stage, {}), iteration_of)

            _emit_guarded(builder, guard, emit_slot)

    # -- statements

    def _emit_group(
        self,
        builder: IndexBuilder,
        group: Sequence[Operation],
        guard: bool | SSAValue,
        mapping: ValueMap,
        iteration_of: IterationOf,
    ) -> None:
        """Emit ``group`` (same stage, consecutive in order) under ``guard``; statement
        results used later escape into ``mapping``."""
        if guard is False:
            return
        if guard is True:
            self._emit_statements(builder, group, mapping, iteration_of)
            return
        members = set(group)
        escaping = [
            r
            for op in group
            for r in op.results
            if any(use.operation not in members for use in r.uses)
        ]
        for value in escaping:
            if _zero(value.type) is None:
                raise op_error(
                    value.owner,  # type: ignore[arg-type]
                    f"produces a {value.type} that a guarded prologue group would have "
                    "to return; only integer, index and float values can leave a guard",
                )
        inner_mapping = dict(mapping)

        def emit_then(b: IndexBuilder) -> list[SSAValue]:
            self._emit_statements(b, group, inner_mapping, iteration_of)
            return [inner_mapping[r] for r in escaping]

        if_op = _emit_guarded(builder, guard, emit_then)
        for original, result in zip(escaping, if_op.results if if_op else ()):
            mapping[original] = result

    def _emit_statements(
        self,
        builder: IndexBuilder,
        group: Sequence[Operation],
        mapping: ValueMap,
        iteration_of: IterationOf,
    ) -> None:
        if _INSTANCE_KEY not in mapping:
            mapping[_INSTANCE_KEY] = _Instance(builder, iteration_of)  # type: ignore[index]
        instance: _Instance = mapping[_INSTANCE_KEY]  # type: ignore[index]
        iteration = instance.iteration
        for op in group:
            if self._uses_induction_var(op) and self.loop.induction_var not in mapping:
                mapping[self.loop.induction_var] = instance.builder.value(instance.k())
            self._replay_operands(op, builder, mapping)
            clone = op.clone(value_mapper=mapping)
            clone.attributes.pop(STAGE_ATTR, None)
            clone.attributes.pop(ORDER_ATTR, None)
            versioned = self.multi_buffering.rewrite_instance(clone, iteration, builder)
            final = self.barriers.rewrite_instance(
                op,
                versioned,
                iteration,
                lambda op=op: self._lower_bound_parity(op, builder),
                builder,
            )
            for replaced in {clone, versioned} - {final}:
                replaced.drop_all_references()  # detached intermediates
            builder.insert(final)
            for original, new in zip(op.results, final.results):
                mapping[original] = new

    def _uses_induction_var(self, op: Operation) -> bool:
        """Does ``op`` use k, directly or through the pure ops it replays?"""
        for inner in op.walk():
            for operand in inner.operands:
                if operand is self.loop.induction_var:
                    return True
                owner = operand.owner
                if (
                    isinstance(owner, Operation)
                    and owner in self.body_ops
                    and is_side_effect_free(owner)
                    and self._uses_induction_var(owner)
                ):
                    return True
        return False

    def _replay_operands(self, op: Operation, builder: IndexBuilder, mapping: ValueMap) -> None:
        """Clone the pure body ops ``op`` (and its nested ops) depend on."""
        for inner in op.walk():
            for operand in inner.operands:
                self._replay_value(operand, builder, mapping)

    def _replay_value(self, value: SSAValue, builder: IndexBuilder, mapping: ValueMap) -> SSAValue:
        """``value`` for the iteration ``mapping`` describes, cloning the pure body ops
        that compute it; values from outside the body are themselves."""
        if value in mapping:
            return mapping[value]
        owner = value.owner
        if isinstance(owner, Operation) and owner in self.body_ops and is_side_effect_free(owner):
            self._replay_operands(owner, builder, mapping)
            self.replayed.append(builder.insert(owner.clone(value_mapper=mapping)))
            return mapping[value]
        return value

    def _lower_bound_parity(self, op: Operation, builder: IndexBuilder) -> Index:
        """The parity a wait names, evaluated at ``k = lb`` (its initial phase)."""
        assert isinstance(op, MBarrierWaitOp)
        form = affine_form(op.parity, self.loop)
        if not any(isinstance(symbol, VariantSymbol) for symbol, _ in form.terms):
            total: Index = form.constant
            for symbol, coefficient in form.terms:
                value = self.loop.lb if symbol is IV else symbol
                total = builder.add(total, builder.mul(coefficient, _index_operand(value)))
            return total
        owner = op.parity.owner
        if isinstance(owner, Operation) and owner in self.body_ops and not is_side_effect_free(owner):
            raise op_error(
                op,
                "parity must be computed from the induction variable by pure ops to "
                "expand the mbarrier per stage",
            )
        at_lower_bound: ValueMap = {self.loop.induction_var: self.loop.lb}
        return self._replay_value(op.parity, builder, at_lower_bound)


class _Instance:
    """The iteration a group of statement instances works on; its index arithmetic is
    emitted (by the builder of the block the group starts in) only when needed."""

    def __init__(self, builder: IndexBuilder, iteration_of: IterationOf):
        self.builder = builder
        self._iteration_of = iteration_of
        self._values: tuple[Index, Index] | None = None

    def _compute(self) -> tuple[Index, Index]:
        if self._values is None:
            self._values = self._iteration_of(self.builder)
        return self._values

    def iteration(self) -> Index:
        """The normalized iteration ``(k - lb) / step``."""
        return self._compute()[0]

    def k(self) -> Index:
        """The induction variable's value in this iteration (the skewed k)."""
        return self._compute()[1]


_INSTANCE_KEY = object()  # mapping slot holding the group's _Instance


def _index_operand(value: SSAValue) -> Index:
    static = static_value(value)
    return value if static is None else static


def _runs_by_stage(
    ops: Sequence[Operation], stage: dict[Operation, int]
) -> list[tuple[int, list[Operation]]]:
    """Maximal runs of consecutive ops sharing a stage."""
    runs: list[tuple[int, list[Operation]]] = []
    for op in ops:
        if runs and runs[-1][0] == stage[op]:
            runs[-1][1].append(op)
        else:
            runs.append((stage[op], [op]))
    return runs


def _emit_guarded(
    builder: IndexBuilder,
    guard: bool | SSAValue,
    emit_body: Callable[[IndexBuilder], list[SSAValue] | None],
) -> scf.IfOp | None:
    """Emit ``emit_body`` directly (static guard) or in an ``scf.if`` whose results are
    the values ``emit_body`` returns (zero when the guard fails: never used then)."""
    if guard is True:
        emit_body(builder)
        return None
    assert isinstance(guard, SSAValue)
    then_block = Block()
    then_builder = builder.nested(InsertPoint.at_end(then_block))
    results = emit_body(then_builder) or []
    then_builder.insert(scf.YieldOp(*results))
    else_region: list[Block] | None = None
    if results:
        else_block = Block()
        else_builder = builder.nested(InsertPoint.at_end(else_block))
        zeros = [else_builder.insert(_zero(r.type)).results[0] for r in results]  # type: ignore[arg-type]
        else_builder.insert(scf.YieldOp(*zeros))
        else_region = [else_block]
    if_op = scf.IfOp(guard, [r.type for r in results], [then_block], else_region)
    builder.insert(if_op)
    return if_op


def _zero(value_type: Attribute) -> Operation | None:
    """A placeholder for a guarded result when the guard fails (never used then)."""
    if isinstance(value_type, IndexType | IntegerType):
        return arith.ConstantOp(IntegerAttr(0, value_type))
    if isinstance(value_type, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, value_type))
    return None
