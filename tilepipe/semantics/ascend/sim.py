"""The Ascend pipe simulator: executes the per-pipe queues that the scalar unit
(``issue``) fills, computing the data with numpy and checking flags, locks, races,
deadlocks and flags left set, and counting cycles.  Entry: ``run_ascend_kernel``.
See docs/ascend.md, "Pipe simulator"."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import SSAValue

from tilepipe.core.diagnostics import op_location
from tilepipe.dialects.ascend_pipes import Core, Pipe
from tilepipe.core.targets import ASCEND_910B, AscendTarget, target_of

from tilepipe.passes.analysis.grid import GridEvaluationError, evaluate_grid
from tilepipe.semantics.ascend.data_unit import DataUnit, numpy_dtype
from tilepipe.semantics.ascend.issue import Box, Instruction, Kind, ScalarUnit
from tilepipe.semantics.lane_engine import LaneEngine, steady_step
from tilepipe.semantics.op_work import op_work
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.work_limit import WorkLimit

CORE_PIPES = (Pipe.S, Pipe.V, Pipe.M, Pipe.MTE1, Pipe.MTE2, Pipe.MTE3, Pipe.FIX)


def _pipes_of(instr: Instruction) -> tuple[tuple[Core, Pipe], ...]:
    pipes = CORE_PIPES if instr.pipe == Pipe.ALL else (instr.pipe,)
    return tuple((instr.core, pipe) for pipe in pipes)


def _compute_work(instr: Instruction) -> str | None:
    """What the steady-state step counts: the cube and vector pipes' data ops."""
    if instr.kind == Kind.DATA and instr.pipe in (Pipe.M, Pipe.V):
        return instr.op.name
    return None


def _other(core: Core) -> Core:
    return Core.VECTOR if core == Core.CUBE else Core.CUBE


def where(instr: Instruction) -> str:
    location = op_location(instr.op)
    return f"{instr.describe()} at {location}" if location else instr.describe()


@dataclass
class PipeSimReport:
    outputs: dict[str, np.ndarray]
    races: list[str] = field(default_factory=list)
    deadlock: list[str] = field(default_factory=list)
    flag_errors: list[str] = field(default_factory=list)
    flags_left: list[str] = field(default_factory=list)
    # Elements where the hardware computes other than the tile level (the fixpipe's
    # saturating f32 -> f16 of an infinity, docs/ascend.md "Conversions").
    numerics: list[str] = field(default_factory=list)
    cycles: int = 0
    steady_step: float = 0.0  # cycles per iteration (lane_engine.steady_step)
    instructions: int = 0

    @property
    def ok(self) -> bool:
        return not (
            self.races or self.deadlock or self.flag_errors or self.flags_left or self.numerics
        )

    def problems(self) -> list[str]:
        return [
            *(f"race: {r}" for r in self.races),
            *(f"deadlock: {d}" for d in self.deadlock),
            *(f"flag error: {e}" for e in self.flag_errors),
            *(f"flag left set: {f}" for f in self.flags_left),
            *(f"numerics: {n}" for n in self.numerics),
        ]


class PipeMachine:
    """Executes the issued instructions pipe by pipe (see the module doc)."""

    def __init__(self, instructions: list[Instruction], target: AscendTarget, data: DataUnit):
        self.instructions = instructions
        self.target = target
        self.data = data
        self.report = PipeSimReport({}, instructions=len(instructions))
        # The pipes are the lanes of the shared cycle engine; ALL occupies every pipe.
        self.engine: LaneEngine[Instruction, tuple[Core, Pipe]] = LaneEngine(
            instructions, _pipes_of, lambda instr: instr.index
        )
        self.end: dict[int, int] = {}
        self.ancestors: dict[int, int] = {}
        # Happens-before bookkeeping per pipe: the last sync and the data after it.
        self.last: dict[tuple[Core, Pipe], Instruction | None] = {}
        self.pending: dict[tuple[Core, Pipe], list[Instruction]] = {}
        self.flags: dict[tuple, Instruction] = {}
        # Cross-core flags by (waiting core, id): a set notifies the other core.
        self.counters: dict[tuple[Core, int], deque[Instruction]] = {}
        self.lock_requests: dict[int, list[Instruction]] = {}
        self.release_of: dict[int, Instruction] = {}  # get index -> its release
        self.lock_holder: dict[tuple[Pipe, int], Instruction] = {}
        for instr in instructions:
            if instr.kind == Kind.GET:
                self.lock_requests.setdefault(instr.id, []).append(instr)
        self.accesses: list[tuple[Instruction, Box]] = []

    # -- readiness

    def _ready(self, instr: Instruction) -> int | None:
        """When ``instr`` may start as far as its flags and locks go (its pipes' own
        occupancy is the engine's), or None while blocked."""
        if instr.kind == Kind.WAIT:
            setter = self.flags.get((instr.core, instr.event, instr.id))
            if setter is None:
                return None
            return self.end[setter.index] + self.target.flag_latency
        if instr.kind == Kind.CROSS_WAIT:
            setters = self.counters.get((instr.core, instr.id))
            if not setters:
                return None
            return self.end[setters[0].index] + self.target.flag_latency
        if instr.kind == Kind.GET and instr.op.is_blocking:  # type: ignore[attr-defined]
            earlier = [g for g in self.lock_requests[instr.id] if g.index < instr.index]
            if any(g.index not in self.release_of for g in earlier):
                return None
            releases = [self.end[self.release_of[g.index].index] for g in earlier]
            return max([0, *(r + self.target.lock_latency for r in releases)])
        return 0

    def _duration(self, instr: Instruction) -> int:
        if instr.kind == Kind.DATA:
            latency = self.target.pipe_latencies.get(instr.pipe.value)
            return latency.cycles(op_work(instr.op)) if latency is not None else 1
        if instr.kind in (Kind.GET, Kind.RLS):
            return self.target.lock_latency
        return 0

    # -- execution

    def run(self) -> PipeSimReport:
        if not self.engine.run(self._ready, self._execute):
            self._deadlock()
        self._check_races()
        self._check_cross_core_counters()
        self._check_locks_left()
        for (core, event, ident), setter in self.flags.items():
            self.report.flags_left.append(f"{event} id {ident} ({where(setter)})")
        for (core, ident), setters in self.counters.items():
            if setters:
                self.report.flags_left.append(
                    f"cross-core flag {ident} of the {core.value} core set {len(setters)} "
                    f"times more than waited ({where(setters[0])})"
                )
        self.report.cycles = max(self.end.values(), default=0)
        self.report.steady_step = steady_step(self.engine.timeline, _compute_work)
        return self.report

    def _execute(self, instr: Instruction, start: int) -> int:
        end = start + self._duration(instr)
        self.end[instr.index] = end
        predecessors = self._pipe_predecessors(instr, _pipes_of(instr))
        if instr.kind == Kind.SET:
            flag = (instr.core, instr.event, instr.id)
            if flag in self.flags:
                self.report.flag_errors.append(
                    f"second set of {instr.event} id {instr.id} before its wait: {where(instr)}"
                )
            self.flags[flag] = instr
        elif instr.kind == Kind.WAIT:
            predecessors.append(self.flags.pop((instr.core, instr.event, instr.id)))
        elif instr.kind == Kind.CROSS_SET:
            self.counters.setdefault((_other(instr.core), instr.id), deque()).append(instr)
        elif instr.kind == Kind.CROSS_WAIT:
            predecessors.append(self.counters[(instr.core, instr.id)].popleft())
        elif instr.kind == Kind.GET:
            self.lock_holder[(instr.pipe, instr.id)] = instr
            if instr.op.is_blocking:  # type: ignore[attr-defined]
                earlier = [g for g in self.lock_requests[instr.id] if g.index < instr.index]
                predecessors.extend(self.release_of[g.index] for g in earlier)
        elif instr.kind == Kind.RLS:
            holder = self.lock_holder.pop((instr.pipe, instr.id), None)
            if holder is None:
                self.report.flag_errors.append(f"release of a slot never taken: {where(instr)}")
            else:
                self.release_of[holder.index] = instr
        elif instr.kind == Kind.DATA:
            self.data.execute(instr)
            self.accesses.extend(
                (instr, inside) for box in instr.boxes
                if (inside := self.data.in_bounds(box)) is not None
            )
        mask = 0
        for p in predecessors:
            mask |= self.ancestors[p.index] | (1 << p.index)
        self.ancestors[instr.index] = mask
        return end

    def _pipe_predecessors(
        self, instr: Instruction, keys: tuple[tuple[Core, Pipe], ...]
    ) -> list[Instruction]:
        predecessors: list[Instruction] = []
        for key in keys:
            last = self.last.get(key)
            pending = self.pending.setdefault(key, [])
            ordered = key[1].keeps_own_order
            if last is not None:
                predecessors.append(last)
            if instr.kind.is_sync or ordered:
                predecessors.extend(pending)
                self.last[key] = instr
                self.pending[key] = []
            else:
                pending.append(instr)
        return predecessors

    # -- reports

    def _check_cross_core_counters(self) -> None:
        """Outstanding sets per cross-core flag, in any schedule: the k-th set may run
        as soon as its happens-before predecessors have, so only the waits among its
        ancestors are sure to have drained the counter."""
        limit = self.target.cross_core_counter_limit
        sets: dict[tuple[Core, int], list[Instruction]] = {}
        waits: dict[tuple[Core, int], list[Instruction]] = {}
        for instr in self.instructions:
            if instr.kind == Kind.CROSS_SET:
                sets.setdefault((_other(instr.core), instr.id), []).append(instr)
            elif instr.kind == Kind.CROSS_WAIT:
                waits.setdefault((instr.core, instr.id), []).append(instr)
        for key, flag_sets in sets.items():
            for k, instr in enumerate(flag_sets):
                if instr.index not in self.ancestors:
                    continue  # never ran (deadlock, reported)
                mask = self.ancestors[instr.index]
                drained = sum(1 for w in waits.get(key, ()) if (mask >> w.index) & 1)
                if k + 1 - drained > limit:
                    self.report.flag_errors.append(
                        f"cross-core flag {instr.id} may have {k + 1 - drained} sets "
                        f"outstanding (the counter holds {limit}): {where(instr)}"
                    )
                    break

    def _check_locks_left(self) -> None:
        """Lock slots still taken at kernel exit, and spilled flags never waited: per
        slot, more non-blocking (set-side) requests than blocking (wait-side) ones."""
        for holder in self.lock_holder.values():
            self.report.flags_left.append(f"lock slot {holder.id} still taken ({where(holder)})")
        for slot, requests in sorted(self.lock_requests.items()):
            signals = [g for g in requests if not g.op.is_blocking]  # type: ignore[attr-defined]
            waits = len(requests) - len(signals)
            if len(signals) > waits:
                self.report.flags_left.append(
                    f"lock slot {slot} signalled {len(signals) - waits} times more than "
                    f"waited ({where(signals[-1])})"
                )

    def _deadlock(self) -> None:
        for (core, pipe), queue in self.engine.queues.items():
            if queue:
                head = queue[0]
                self.report.deadlock.append(
                    f"{core.value} {pipe.value} is stuck at {where(head)} "
                    f"({len(queue)} instructions left)"
                )

    def _check_races(self) -> None:
        seen: set[tuple[int, int]] = set()
        by_buffer: dict[SSAValue, list[tuple[Instruction, Box]]] = {}
        for instr, box in self.accesses:
            by_buffer.setdefault(box.buffer, []).append((instr, box))
        for accesses in by_buffer.values():
            for i, (a, box_a) in enumerate(accesses):
                for b, box_b in accesses[i + 1 :]:
                    if a is b or not (box_a.writes or box_b.writes):
                        continue
                    if not box_a.overlaps(box_b):
                        continue
                    if (self.ancestors[b.index] >> a.index) & 1:
                        continue
                    if (self.ancestors[a.index] >> b.index) & 1:
                        continue
                    key = (id(a.op), id(b.op))
                    if key in seen:
                        continue
                    seen.add(key)
                    name = box_a.buffer.name_hint or "buffer"
                    self.report.races.append(
                        f"{name}: {where(a)} and {where(b)} are not ordered"
                    )


def _grid_blocks(kernel: FuncOp, names, scalar_args, shapes):
    """The (x, y, z) index of every block of the kernel's grid (``tile.grid`` or
    ``tile.grid_dims`` evaluated), x fastest."""
    try:
        extents = evaluate_grid(
            kernel, scalar_args,
            {name: shapes[arg] for name, arg in zip(names, kernel.body.block.args) if arg in shapes},
        )
    except GridEvaluationError as err:
        raise KernelError(err.op, str(err)) from None
    grid = [*extents, 1, 1, 1][:3]
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                yield (x, y, z)


def _cross_block_races(
    blocks: list[tuple[int, int, int]], accesses: list[list[tuple[Instruction, Box]]]
) -> list[str]:
    """Blocks are not ordered: overlapping GM accesses of two blocks, one a write."""
    races: list[str] = []
    for i in range(len(blocks)):
        for j in range(i + 1, len(blocks)):
            for a, box_a in accesses[i]:
                hit = next(
                    (b for b, box_b in accesses[j]
                     if (box_a.writes or box_b.writes) and box_a.overlaps(box_b)),
                    None,
                )
                if hit is not None:
                    name = box_a.buffer.name_hint or "buffer"
                    races.append(
                        f"{name}: {where(a)} of block {blocks[i]} and {where(hit)} of block "
                        f"{blocks[j]} are not ordered"
                    )
                    break
    return races


def run_ascend_kernel(
    module_or_kernel: ModuleOp | FuncOp,
    inputs: Mapping[str, np.ndarray],
    scalar_args: Mapping[str, int] | None = None,
    target: AscendTarget | None = None,
    *,
    max_steps: int | None = None,
) -> PipeSimReport:
    """Run an ascend-dialect kernel; return its GM outputs (by argument name) and the
    races, deadlocks, flag errors and cycle count of the run.  ``max_steps``: the
    loop iterations the scalar unit may run (``semantics/work_limit.py``)."""
    kernel = module_or_kernel
    if isinstance(kernel, ModuleOp):
        kernel = next(op for op in kernel.walk() if isinstance(op, FuncOp) and op.body.blocks)
    assert isinstance(kernel, FuncOp)
    if target is None:
        found = target_of(kernel) if "tile.target" in kernel.attributes else ASCEND_910B
        target = found if isinstance(found, AscendTarget) else ASCEND_910B
    arrays: dict[SSAValue, np.ndarray] = {}
    scalars: dict[SSAValue, int] = {}
    names = [arg.name_hint or f"arg{i}" for i, arg in enumerate(kernel.body.block.args)]
    for name, arg in zip(names, kernel.body.block.args):
        if isinstance(arg.type, MemRefType):
            if name not in inputs:
                raise KernelError(kernel, f"no input for argument '{name}'")
            arrays[arg] = np.array(inputs[name], dtype=numpy_dtype(arg.type), copy=True)
            static = arg.type.get_shape()
            if len(static) != arrays[arg].ndim or any(
                d >= 0 and d != n for d, n in zip(static, arrays[arg].shape)
            ):
                raise KernelError(
                    kernel, f"input '{name}' has shape {arrays[arg].shape}, the argument "
                    f"is {arg.type}"
                )
        elif isinstance(arg.type, IndexType | IntegerType):
            scalars[arg] = (scalar_args or {})[name]
    data = DataUnit(arrays)
    gm = set(kernel.body.block.args)
    report = PipeSimReport({})
    shapes = {arg: array.shape for arg, array in arrays.items()}
    blocks = list(_grid_blocks(kernel, names, scalar_args or {}, shapes))
    gm_accesses: list[list[tuple[Instruction, Box]]] = []
    work = WorkLimit(max_steps)
    for block in blocks:
        scalar_unit = ScalarUnit(kernel, scalars, block, shapes, work)
        machine = PipeMachine(scalar_unit.run(), target, data)
        part = machine.run()
        label = f"block {block}: " if len(blocks) > 1 else ""
        for name in ("races", "deadlock", "flag_errors", "flags_left"):
            getattr(report, name).extend(label + text for text in getattr(part, name))
        report.cycles = max(report.cycles, part.cycles)  # blocks run on their own cores
        report.steady_step = max(report.steady_step, part.steady_step)
        report.instructions += part.instructions
        gm_accesses.append([(i, box) for i, box in machine.accesses if box.buffer in gm])
    report.races.extend(_cross_block_races(blocks, gm_accesses))
    report.numerics.extend(data.divergences)
    report.outputs = {
        name: arrays[arg]
        for name, arg in zip(names, kernel.body.block.args)
        if isinstance(arg.type, MemRefType)
    }
    return report
