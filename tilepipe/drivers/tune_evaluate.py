"""One configuration of ``tilepipe tune``, evaluated where an executor runs it (a
worker process, a Ray task): instantiate its tile sizes, compile it, check every
budget, simulate one block.  What comes back (:class:`Outcome`) is plain data, stored
as it is in the tuning cache; the machine model is applied to it afterwards
(:mod:`tilepipe.drivers.tune`)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from tilepipe.core.targets import AscendTarget, CudaTarget
from tilepipe.schedule_sim.machine import BlockResources, KernelPrediction

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
    threads: int | None = None  # per block, as launched
    flags: str = "-"
    step: float | None = None  # predicted cycles per iteration
    cycles: int | None = None  # of one block
    demand: int = 0  # one block's largest per-unit throughput demand, in cycles
    uses_cube: bool = True  # Ascend: the kernel runs on the cube cores
    blocks: int = 1
    rejected: str | None = None
    # Filled in by the tuner, not stored in the cache:
    prediction: KernelPrediction | None = None  # the machine model's answer
    seconds: float | None = None  # the predicted kernel time
    cached: bool = False  # answered from the tuning cache

    _NOT_STORED = ("config", "prediction", "seconds", "cached")

    @property
    def fits(self) -> bool:
        return self.rejected is None

    @property
    def grid_cycles(self) -> int:
        """Cycles of the whole grid if its blocks ran one after another."""
        return (self.cycles or 0) * self.blocks

    @property
    def kernel_cycles(self) -> int:
        """The machine model's cycles for the whole kernel (its blocks in waves over
        the target's processors)."""
        return self.prediction.cycles if self.prediction else self.grid_cycles

    @property
    def resources(self) -> BlockResources:
        return BlockResources(self.threads or 1, self.arena_bytes or 0, self.registers)

    def rank(self) -> tuple:
        config = self.config
        return (self.kernel_cycles, self.step, config.num_stages, config.kernel, config.params)

    def cache_entry(self) -> dict:
        entry = asdict(self)
        for name in self._NOT_STORED:
            entry.pop(name)
        return entry

    @classmethod
    def from_cache_entry(cls, config: Config, entry: dict) -> Outcome | None:
        """The outcome an entry stores (None: an entry of another shape, a miss)."""
        stored = {f.name for f in fields(cls)} - set(cls._NOT_STORED)
        if set(entry) != stored:
            return None
        return cls(config, cached=True, **entry)


def _message(err: Exception) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    # Keep the diagnostic's message, not its location prefix.
    return text.split(" error: ", 1)[-1]


def arena_bytes(module) -> int:
    """The bytes of the shared arena(s) `merge-shared-memory` packed in ``module``."""
    from xdsl.dialects import memref

    total = 0
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and "arena.layout" in op.attributes:
            shape = op.memref.type.get_shape()
            total += int(shape[0]) if shape else 0  # the arena is an i8 buffer
    return total


def grid_blocks(module, index_args, shapes=None) -> int:
    """The blocks of every kernel of ``module`` (its grid evaluated at the arguments)."""
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


def launched_threads(module, kernel: str, default: int) -> int:
    """The threads a compiled kernel is launched with: its ``known_block_size``, which
    a warp-specialized kernel's producer warpgroup makes larger than ``tile.threads``."""
    for op in module.walk() if module is not None else ():
        if op.name == "gpu.func" and op.attributes["sym_name"].data == kernel:
            size = op.properties.get("known_block_size")
            if size is not None:
                return int(size.get_values()[0])
    return default


def _kernels(module) -> list:
    from xdsl.dialects.func import FuncOp

    return [op for op in module.walk() if isinstance(op, FuncOp) and op.body.blocks]


def _evaluate_cuda(outcome: Outcome, module, target: CudaTarget, index_args, shapes, run_ptxas: bool) -> None:
    from tilepipe.dialects.kernel_attrs import kernel_launch_shape
    from tilepipe.drivers.compile import compile_kernel
    from tilepipe.schedule_sim.flow import scheduled_module, simulate_kernels

    threads = {k.sym_name.data: kernel_launch_shape(k)[1] for k in _kernels(module)}
    scheduled = scheduled_module(module)
    outcome.arena_bytes = arena_bytes(scheduled)
    reports = simulate_kernels(scheduled, index_args, shapes, target=target)
    outcome.step = max(r.steady_step for _, r in reports)
    outcome.cycles = max(r.total_cycles for _, r in reports)
    outcome.demand = max(max(r.demand.values(), default=0) for _, r in reports)
    outcome.threads = max(threads.values(), default=1)
    if run_ptxas:
        result = compile_kernel(outcome.text, outcome.config.kernel, target.name)
        outcome.threads = max(
            (launched_threads(result.module, name, count) for name, count in threads.items()), default=1)
        outcome.registers = max((r.registers for r in result.ptxas), default=0)
        spills = sum(r.spill_store_bytes + r.spill_load_bytes for r in result.ptxas)
        if outcome.registers > MAX_REGISTERS or spills:
            outcome.rejected = (
                f"registers: {outcome.registers} per thread, {spills} spill bytes "
                f"(limit {MAX_REGISTERS}, no spills)"
            )


def _evaluate_ascend(outcome: Outcome, module, target: AscendTarget, index_args, shapes) -> None:
    import numpy as np

    from tilepipe.dialects.ascend_pipes import buffer_bytes
    from tilepipe.dialects.ascend_sync import GetBufOp
    from tilepipe.dialects.tile_forms import MatmulForm
    from tilepipe.drivers.compile import compile_module
    from tilepipe.passes.ascend.buffer_ownership import on_chip_allocs
    from tilepipe.passes.ascend.flag_blocks import coalesce, plan_flag_budget
    from tilepipe.semantics.ascend.sim import numpy_dtype, run_ascend_kernel
    from tilepipe.semantics.tile.grid_runner import argument_names, argument_shape

    outcome.uses_cube = any(isinstance(op, MatmulForm) for op in module.walk())
    # Over-capacity buffers and a lock pool too small for the spilled flags are
    # diagnostics of the pipeline itself.
    compile_module(module, target.name, "ascend")
    kernels = _kernels(module)
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


Job = tuple[Config, str, "CudaTarget | AscendTarget", dict[str, int], dict[str, tuple[int, ...]], bool]


def evaluate(job: Job) -> Outcome:
    """Compile and simulate one configuration: ``(config, kernel text, target record,
    index arguments, shapes, run ptxas)``; the record may carry calibrated rates."""
    from xdsl.utils.exceptions import DiagnosticException, PassFailedException

    from tilepipe.drivers.compile import parse_kernel, retarget
    from tilepipe.core.diagnostics import DiagnosedError
    from tilepipe.passes.tuning.instantiate_tile_params import InstantiateTileParams
    from tilepipe.core.registry import make_context
    from tilepipe.semantics.errors import KernelError

    config, text, target, index_args, shapes, run_ptxas = job
    outcome = Outcome(config)
    try:
        module = parse_kernel(text, config.kernel)
        if config.params:
            values = ",".join(f"{name}={value}" for name, value in config.params)
            InstantiateTileParams(values=values).apply(make_context(), module)
        retarget(module, target, config.num_stages)  # verifies the instantiated kernel
        outcome.text = str(module) + "\n"
        outcome.blocks = grid_blocks(module, index_args, shapes)
        if isinstance(target, CudaTarget):
            _evaluate_cuda(outcome, module, target, index_args, shapes, run_ptxas)
        else:
            _evaluate_ascend(outcome, module, target, index_args, shapes)
    except (DiagnosedError, DiagnosticException, PassFailedException, KernelError) as err:
        outcome.rejected = _message(err)
    return outcome
