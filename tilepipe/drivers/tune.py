"""``tilepipe tune``: rank pipeline configurations at compile time, on any machine.

Every configuration (a tile shape times a ``num_stages``) is compiled in a worker
process and kept only if it fits every budget of the target.  The tile shapes are the
kernel files given, and within a kernel that declares candidates (``tile.tune``,
:mod:`tilepipe.dialects.tile_params`) every combination of them, each instantiated by
``instantiate-tile-params`` (a combination the kernel cannot take -- a size that does
not divide its extent, shapes that no longer fit -- is rejected with the reason).
The budgets:

* CUDA: the shared-memory arena ``merge-shared-memory`` packs (its budget check), and
  the registers ptxas reports (at most 255 per thread, no spills) unless ``--no-ptxas``;
* Ascend: the on-chip capacities, the event ids per hard event and the lock pool
  (``ascend-flag-budget``'s plan).

The survivors are ranked by the schedule simulator's cycles for the whole grid (one
block's cycles times the number of blocks, which is what makes tile shapes comparable;
for one kernel it orders by the block's cycles), then cycles per iteration, then fewer
stages.  The target's latencies are per byte and per FLOP (docs/schedule_sim.md), so
a tile shape's cycles follow the bytes it moves and the FLOPs it computes.  The table
lists every configuration with the reason it was rejected, and the pick's tile-level kernel (its ``num_stages`` set) is
written out.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

MAX_REGISTERS = 255


@dataclass(frozen=True)
class Config:
    kernel: str  # path of the kernel file
    num_stages: int
    params: tuple[tuple[str, int], ...] = ()  # declared tile sizes, in declaration order

    @property
    def label(self) -> str:
        sizes = [f"{name}={value}" for name, value in self.params]
        return " ".join([Path(self.kernel).name, *sizes, f"num_stages={self.num_stages}"])


@dataclass
class Outcome:
    config: Config
    text: str = ""  # the tile-level kernel with num_stages set
    arena_bytes: int | None = None
    registers: int | None = None
    flags: str = "-"
    step: float | None = None  # predicted cycles per iteration
    cycles: int | None = None  # of one block
    blocks: int = 1
    rejected: str | None = None

    @property
    def fits(self) -> bool:
        return self.rejected is None

    @property
    def grid_cycles(self) -> int:
        """Cycles of the whole grid if its blocks ran one after another: what compares
        tile shapes (a smaller tile has more blocks)."""
        return (self.cycles or 0) * self.blocks

    def rank(self) -> tuple:
        config = self.config
        return (self.grid_cycles, self.step, config.num_stages, config.kernel, config.params)


def _message(err: Exception) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    # Keep the diagnostic's message, not its location prefix.
    return text.split(" error: ", 1)[-1]


def _arena_bytes(module) -> int:
    from xdsl.dialects import memref

    total = 0
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and "arena.layout" in op.attributes:
            shape = op.memref.type.get_shape()
            total += int(shape[0]) if shape else 0  # the arena is an i8 buffer
    return total


def _blocks(module, index_args, shapes=None) -> int:
    from xdsl.dialects.func import FuncOp

    from tilepipe.passes.analysis.grid import GridEvaluationError, evaluate_grid
    from tilepipe.semantics.errors import KernelError

    count = 0
    for func in module.walk():
        if isinstance(func, FuncOp) and func.body.blocks:
            try:  # a tile.grid_dims grid needs the arguments' values
                grid = evaluate_grid(func, index_args, shapes)
            except GridEvaluationError as err:
                raise KernelError(err.op, str(err)) from None
            count += math.prod(grid)
    return max(count, 1)


def _evaluate_cuda(outcome: Outcome, module, target, index_args, shapes, run_ptxas: bool) -> None:
    from tilepipe.drivers.compile import compile_kernel
    from tilepipe.schedule_sim.flow import scheduled_module, simulate_kernels

    scheduled = scheduled_module(module)
    outcome.arena_bytes = _arena_bytes(scheduled)
    reports = simulate_kernels(scheduled, index_args, shapes)
    outcome.step = max(r.steady_step for _, r in reports)
    outcome.cycles = max(r.total_cycles for _, r in reports)
    if run_ptxas:
        result = compile_kernel(outcome.text, outcome.config.kernel, target.name)
        outcome.registers = max((r.registers for r in result.ptxas), default=0)
        spills = sum(r.spill_store_bytes + r.spill_load_bytes for r in result.ptxas)
        if outcome.registers > MAX_REGISTERS or spills:
            outcome.rejected = (
                f"registers: {outcome.registers} per thread, {spills} spill bytes "
                f"(limit {MAX_REGISTERS}, no spills)"
            )


def _evaluate_ascend(outcome: Outcome, module, target, index_args, shapes) -> None:
    import numpy as np
    from xdsl.dialects.func import FuncOp

    from tilepipe.dialects.ascend_pipes import buffer_bytes
    from tilepipe.dialects.ascend_sync import GetBufOp
    from tilepipe.drivers.compile import compile_module
    from tilepipe.passes.ascend.buffer_ownership import on_chip_allocs
    from tilepipe.passes.ascend.flag_blocks import coalesce, plan_flag_budget
    from tilepipe.semantics.ascend.sim import numpy_dtype, run_ascend_kernel
    from tilepipe.semantics.tile.grid_runner import argument_names, argument_shape

    # Over-capacity buffers and a lock pool too small for the spilled flags are
    # diagnostics of the pipeline itself.
    compile_module(module, target.name, "ascend")
    kernels = [op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks]
    demands, locks, on_chip = [], 0, 0
    for kernel in kernels:
        plan = plan_flag_budget(kernel, target.intra_core_event_ids, target.lock_pool_slots)
        demands.extend(budget.demand for budget in plan.events)
        locks += sum(b.size for b in coalesce([o for o in kernel.walk() if isinstance(o, GetBufOp)]))
        on_chip += sum(buffer_bytes(a.memref.type) for a in on_chip_allocs(kernel))
    outcome.arena_bytes = on_chip
    outcome.flags = (
        f"{max(demands, default=0)}/{target.intra_core_event_ids}"
        + (f" +{locks} locks" if locks else "")
    )
    # Cycles from the pipe simulator, on zero inputs (timing does not depend on data).
    kernel = kernels[0]
    inputs = {
        name: np.zeros(
            argument_shape(kernel, name, arg.type, shapes.get(name), None), dtype=numpy_dtype(arg.type)
        )
        for name, arg in zip(argument_names(kernel), kernel.body.block.args)
        if hasattr(arg.type, "get_shape")
    }
    report = run_ascend_kernel(module, inputs, index_args)
    if not report.ok:
        outcome.rejected = "pipe simulator: " + report.problems()[0]
    outcome.cycles = report.cycles
    outcome.step = report.steady_step


def evaluate(job: tuple[Config, str, str, dict[str, int], dict[str, tuple[int, ...]], bool]) -> Outcome:
    """Compile and simulate one configuration (run in a worker process)."""
    from xdsl.utils.exceptions import DiagnosticException, PassFailedException

    from tilepipe.drivers.compile import parse_kernel, retarget
    from tilepipe.core.diagnostics import DiagnosedError
    from tilepipe.passes.tuning.instantiate_tile_params import InstantiateTileParams
    from tilepipe.core.registry import make_context
    from tilepipe.semantics.errors import KernelError
    from tilepipe.core.targets import CudaTarget, get_target

    config, text, target_name, index_args, shapes, run_ptxas = job
    outcome = Outcome(config)
    target = get_target(target_name)
    try:
        module = parse_kernel(text, config.kernel)
        if config.params:
            values = ",".join(f"{name}={value}" for name, value in config.params)
            InstantiateTileParams(values=values).apply(make_context(), module)
        retarget(module, target, config.num_stages)  # verifies the instantiated kernel
        outcome.text = str(module) + "\n"
        outcome.blocks = _blocks(module, index_args, shapes)
        if isinstance(target, CudaTarget):
            _evaluate_cuda(outcome, module, target, index_args, shapes, run_ptxas)
        else:
            _evaluate_ascend(outcome, module, target, index_args, shapes)
    except (DiagnosedError, DiagnosticException, PassFailedException, KernelError) as err:
        outcome.rejected = _message(err)
    return outcome


def declared_sizes(path: str, text: str) -> list[tuple[tuple[str, int], ...]]:
    """Every combination of the tile sizes the kernel declares (``[()]`` when it
    declares none); malformed declarations are a :class:`CompileError`."""
    from tilepipe.drivers.compile import CompileError, parse_kernel
    from tilepipe.core.diagnostics import op_diagnostic
    from tilepipe.dialects.tile_params import TUNE, tune_candidates

    module = parse_kernel(text, path)  # verifies the declarations
    kernels = [op for op in module.walk() if TUNE in op.attributes]
    if len(kernels) > 1:
        raise CompileError([op_diagnostic(
            kernels[1], "error", f"declares '{TUNE}' too: tilepipe tune takes the tile "
            "sizes of one kernel per file")])
    candidates = tune_candidates(kernels[0]) if kernels else {}
    names = list(candidates)
    return [tuple(zip(names, values)) for values in itertools.product(*candidates.values())]


def tune(
    kernels: Sequence[tuple[str, str]],
    target_name: str,
    depths: Sequence[int],
    index_args: dict[str, int] | None = None,
    run_ptxas: bool = True,
    jobs: int | None = None,
    shapes: dict[str, tuple[int, ...]] | None = None,
) -> list[Outcome]:
    """Every configuration's outcome, in (kernel, tile sizes, depth) order; ``shapes``
    gives the sizes of dynamically shaped memref arguments (by name) that the grid,
    the trip counts and the simulators are evaluated at."""
    configs = [
        (Config(path, d, sizes), text)
        for path, text in kernels
        for sizes in declared_sizes(path, text)
        for d in depths
    ]
    work = [
        (c, text, target_name, dict(index_args or {}), dict(shapes or {}), run_ptxas)
        for c, text in configs
    ]
    workers = max(1, min(jobs or os.cpu_count() or 1, len(work)))
    if workers == 1:
        return [evaluate(job) for job in work]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(evaluate, work))


def best(outcomes: Sequence[Outcome]) -> Outcome | None:
    fitting = [o for o in outcomes if o.fits]
    return min(fitting, key=Outcome.rank) if fitting else None


def format_table(outcomes: Sequence[Outcome], chosen: Outcome | None) -> str:
    def cell(value, fmt="{}") -> str:
        return "-" if value is None else fmt.format(value)

    rows = [("", "config", "arena B", "regs", "flags", "cyc/iter", "cycles", "grid cycles",
             "verdict")]
    for o in outcomes:
        name = o.config.label
        verdict = "rejected: " + o.rejected if o.rejected else "fits"
        rows.append((
            "*" if o is chosen else "", name, cell(o.arena_bytes), cell(o.registers),
            o.flags, cell(o.step, "{:.1f}"), cell(o.cycles),
            cell(o.grid_cycles if o.cycles is not None else None), verdict,
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        " ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + " " + r[-1] for r in rows
    )


def parse_depths(spec: str) -> list[int]:
    """``"1-5"`` or ``"1,2,4"`` -> the depths."""
    depths: list[int] = []
    for part in spec.split(","):
        low, sep, high = part.partition("-")
        if not low.strip().isdigit() or (sep and not high.strip().isdigit()):
            raise ValueError(f"--num-stages takes N, N-M or a comma list, got '{spec}'")
        depths.extend(range(int(low), int(high) + 1) if sep else [int(low)])
    if not depths or min(depths) < 1:
        raise ValueError("num_stages must be at least 1")
    return depths


def _named_target(kernels: Sequence[tuple[str, str]]) -> str:
    """The target the kernels name in ``tile.target`` (sm_80 if none); kernels
    naming different targets must choose one with --target (a ValueError)."""
    from tilepipe.core.targets import DEFAULT_TARGET
    from tilepipe.drivers.compile import named_targets, parse_kernel

    named = sorted({t for path, text in kernels for t in named_targets(parse_kernel(text, path))})
    if len(named) > 1:
        raise ValueError(f"the kernels name different targets ({', '.join(named)}): "
                         "choose one with --target")
    return named[0] if named else DEFAULT_TARGET


def run_tune_command(args) -> int:
    """``tilepipe tune`` (options as its parser in :mod:`tilepipe.drivers.cli` defines them);
    a malformed option value raises ValueError."""
    import sys

    from tilepipe.schedule_sim.flow import parse_index_args
    from tilepipe.core.source import read_source
    from tilepipe.core.targets import TARGET_ALIASES

    depths = parse_depths(args.num_stages)
    index_args = parse_index_args(args.index_args)
    kernels = [(path, read_source(Path(path))) for path in args.kernels]
    target = TARGET_ALIASES.get(args.target, args.target) or _named_target(kernels)
    outcomes = tune(kernels, target, depths, index_args, not args.no_ptxas, args.jobs, dict(args.shape))
    chosen = best(outcomes)
    print(format_table(outcomes, chosen), file=sys.stderr)
    if chosen is None:
        print("tilepipe tune: no configuration fits the budgets", file=sys.stderr)
        return 1
    if args.output:
        Path(args.output).write_text(chosen.text)
    else:
        sys.stdout.write(chosen.text)
    return 0
