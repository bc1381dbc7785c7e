"""Run a kernel over its grid: parse, bind arguments, interpret every block.

Public entry points (re-exported by :mod:`tilepipe.semantics`): :func:`run_tile_kernel`,
:func:`find_races`, :func:`execute` (both at once) and :func:`load_module`.
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from tilepipe.core.diagnostics import InputError
from tilepipe.core.verify_memo import verify_module_if_changed
from tilepipe.dialects.kernel_attrs import kernel_launch_shape
from tilepipe.dialects.tile_launch import grid_dims_op
from tilepipe.passes.analysis.grid import GridEvaluationError, evaluate_grid
from tilepipe.passes.ascend.resolve_core import is_ascend_kernel
from tilepipe.core.registry import make_context

from tilepipe.semantics.ascend.races import AscendProblem, ascend_races
from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.tile.grid_races import GridConflicts
from tilepipe.semantics.tile.block_machine import BlockMachine
from tilepipe.semantics.memory import Buffer, element_format, new_buffer
from tilepipe.semantics.tile.races import Race, RaceTracker
from tilepipe.semantics.tile.interpreter_base import KernelRuntime
from tilepipe.semantics.work_limit import WorkLimit
from tilepipe.semantics.tile.scalar import (
    ArithFunctions,
    MemRefFunctions,
    ScfFunctions,
    wrap_signed,
)
from tilepipe.semantics.tile.sync_ops import SyncFunctions
from tilepipe.semantics.tile.warp_roles import WarpRoleFunctions
from tilepipe.semantics.tile.tile_ops import TileFunctions


def load_module(module_or_text: ModuleOp | str, file_name: str = "<input>") -> ModuleOp:
    """Parse (with op locations) and verify; errors become :class:`KernelError`."""
    if isinstance(module_or_text, ModuleOp):
        module = module_or_text
    else:
        from tilepipe.core.source import parse_source

        try:
            return parse_source(module_or_text, file_name, make_context())
        except InputError as err:
            raise KernelError.at(err.diagnostic) from None
    if (diagnostic := verify_module_if_changed(module)) is not None:
        raise KernelError.at(diagnostic)
    return module


# Kernels run from text, parsed: execute only reads a module, and a test or a tuner runs
# one text at many trip counts, depths and inputs.  Keyed on the text and file name
# (its locations); bounded, least recently used first out.
_PARSED: OrderedDict[tuple[str, str], ModuleOp] = OrderedDict()
_PARSED_LIMIT = 16
_PARSED_LOCK = threading.Lock()


def _parsed_for_reading(module_or_text: ModuleOp | str, file_name: str) -> ModuleOp:
    """:func:`load_module`, sharing the parse of a text among runs that only read it."""
    if isinstance(module_or_text, ModuleOp):
        return load_module(module_or_text, file_name)
    key = (module_or_text, file_name)
    with _PARSED_LOCK:
        if (module := _PARSED.get(key)) is not None:
            _PARSED.move_to_end(key)
            return module
    module = load_module(module_or_text, file_name)
    with _PARSED_LOCK:
        _PARSED[key] = module
        while len(_PARSED) > _PARSED_LIMIT:
            _PARSED.popitem(last=False)
    return module


def select_kernel(module: ModuleOp, func_name: str | None) -> FuncOp:
    funcs = [op for op in module.walk() if isinstance(op, FuncOp)]
    if func_name is not None:
        for func in funcs:
            if func.sym_name.data == func_name:
                return _with_body(func)
        raise KernelError(None, f"no function named @{func_name}")
    kernels = [
        f for f in funcs if "tile.grid" in f.attributes or grid_dims_op(f) is not None
    ] or funcs
    if not kernels:
        raise KernelError(None, "the module has no function to run")
    if len(kernels) > 1:
        names = ", ".join("@" + f.sym_name.data for f in kernels)
        raise KernelError(None, f"several kernels ({names}): name one to run")
    return _with_body(kernels[0])


def _with_body(func: FuncOp) -> FuncOp:
    """The function to run, if its body is one block (a kernel or not: without a
    ``tile.grid`` attribute, the only function of a module is run too)."""
    if len(func.body.blocks) != 1:
        what = "is a declaration" if func.is_declaration else "has several blocks"
        raise KernelError(func, f"{what}: tile-run runs functions whose body is one block")
    return func


def argument_names(func: FuncOp) -> list[str]:
    return [
        arg.name_hint or f"arg{i}" for i, arg in enumerate(func.body.block.args)
    ]


def random_array(
    memref_type: MemRefType, rng: np.random.Generator, shape: Sequence[int] | None = None
) -> np.ndarray:
    element = element_format(memref_type.element_type)
    shape = memref_type.get_shape() if shape is None else tuple(shape)
    if element.is_float:
        return element.from_storage(element.to_storage(rng.uniform(-1.0, 1.0, shape)))
    return rng.integers(-8, 8, shape).astype(element.storage)


def argument_shape(
    func: FuncOp, name: str, type_: MemRefType, given: Sequence[int] | None,
    data: np.ndarray | None,
) -> tuple[int, ...]:
    """The shape of memref argument ``name``: its type's when static, else the one
    ``given`` (shapes / --shape) or that of its input array (docs/semantics.md)."""
    static = tuple(type_.get_shape())
    if data is not None and given is not None and tuple(np.shape(data)) != tuple(given):
        raise KernelError(
            func, f"input '{name}' has shape {tuple(np.shape(data))}, but its given "
            f"shape is {tuple(given)}"
        )
    shape = tuple(given) if given is not None else (
        tuple(np.shape(data)) if data is not None else None
    )
    if shape is None:
        if any(d < 0 for d in static):
            dims = "x".join(f"D{d}" for d in range(len(static)))
            raise KernelError(
                func, f"argument %{name} : {type_} needs a shape (shapes / --shape "
                f"{name}={dims}, or an input array)"
            )
        return static
    if len(shape) != len(static) or any(s >= 0 and s != d for s, d in zip(static, shape)):
        what = f"input '{name}' has shape" if given is None else f"the shape of '{name}' is"
        raise KernelError(func, f"{what} {shape}, the argument is {type_}")
    for d, size in enumerate(shape):
        if size <= 0:
            raise KernelError(
                func, f"size {size} of dimension {d} of %{name} must be positive"
            )
    return shape


def _bind_arguments(
    func: FuncOp,
    inputs: Mapping[str, np.ndarray],
    index_args: Mapping[str, int],
    shapes: Mapping[str, Sequence[int]],
    seed: int,
) -> tuple[list[object], dict[str, Buffer]]:
    rng = np.random.default_rng(seed)
    values: list[object] = []
    buffers: dict[str, Buffer] = {}
    names = argument_names(func)
    known = set(names)
    for given in (*inputs, *index_args, *shapes):
        if given not in known:
            raise KernelError(
                func, f"has no argument named '{given}' (arguments: {', '.join(names)})"
            )
    for name, arg in zip(names, func.body.block.args):
        type_ = arg.type
        if name in shapes and not isinstance(type_, MemRefType):
            raise KernelError(func, f"argument %{name} : {type_} has no shape to give")
        if isinstance(type_, MemRefType):
            data = inputs.get(name)
            shape = argument_shape(func, name, type_, shapes.get(name), data)
            try:
                if math.prod(shape) > np.iinfo(np.intp).max // 8:  # past numpy's sizes
                    raise MemoryError
                if data is None:
                    data = random_array(type_, rng, shape)
                buffer = new_buffer(type_, f"%{name}", shape=shape)
            except MemoryError:
                raise KernelError(
                    func, f"%{name} of shape {'x'.join(map(str, shape))} is too large "
                    "for the interpreter's memory"
                ) from None
            buffer.write(buffer.whole(), np.asarray(data))
            buffers[name] = buffer
            values.append(buffer)
        elif isinstance(type_, IndexType | IntegerType):
            if name not in index_args:
                raise KernelError(
                    func, f"argument %{name} : {type_} needs a value (index_args / "
                    f"--index-arg {name}=VALUE)"
                )
            value = int(index_args[name])
            width = 64 if isinstance(type_, IndexType) else type_.width.data
            # Either spelling of an iN value (signed or unsigned) is accepted; more bits
            # are not (they would wrap silently, e.g. into an enormous grid).
            if not -(1 << (width - 1)) <= value < (1 << width):
                raise KernelError(
                    func, f"value {value} of argument %{name} : {type_} does not fit in {width} bits"
                )
            values.append(wrap_signed(value, type_))
        else:
            raise KernelError(func, f"cannot pass an argument of type {type_}")
    return values, buffers


def grid_blocks(grid: Sequence[int]) -> list[tuple[int, ...]]:
    """Every block of ``grid``, x fastest."""
    return [tuple(reversed(b)) for b in itertools.product(*(range(g) for g in reversed(grid)))]


class _CurrentOp(Interpreter.Listener):
    """Remembers the op being interpreted, to locate unexpected failures."""

    op: Operation | None = None

    def will_interpret_op(self, op: Operation, args) -> None:
        self.op = op


@dataclass
class KernelRun:
    """The final memref arguments by name, and the races found (when checked)."""

    outputs: dict[str, np.ndarray]
    races: list[Race] | list[AscendProblem]  # AscendProblem: an Ascend kernel


def execute(
    module_or_text: ModuleOp | str,
    func_name: str | None = None,
    inputs: Mapping[str, np.ndarray] | None = None,
    *,
    seed: int = 0,
    blocks: Iterable[Sequence[int]] | None = None,
    index_args: Mapping[str, int] | None = None,
    check_races: bool = False,
    file_name: str = "<input>",
    machine: Callable[..., BlockMachine] = BlockMachine,
    shapes: Mapping[str, Sequence[int]] | None = None,
    max_steps: int | None = None,
) -> KernelRun:
    """Run a kernel; return its outputs and (with ``check_races``) its races.

    ``max_steps``: the loop iterations the run may execute (default
    :data:`~tilepipe.semantics.work_limit.DEFAULT_MAX_STEPS`); a loop that would go
    past it is a :class:`KernelError` at the loop, before its first iteration.

    ``shapes`` gives the sizes of dynamically shaped memref arguments by name (or
    their ``inputs`` do).  ``machine`` builds each block's :class:`BlockMachine` (the
    schedule simulator passes one that also records the trace it times)."""
    module = _parsed_for_reading(module_or_text, file_name)
    func = select_kernel(module, func_name)
    _, threads = kernel_launch_shape(func)
    args, buffers = _bind_arguments(func, inputs or {}, index_args or {}, shapes or {}, seed)
    try:
        grid = evaluate_grid(
            func, index_args or {}, {name: b.shape for name, b in buffers.items()}
        )
    except GridEvaluationError as err:
        raise KernelError(err.op, str(err)) from None
    chosen = grid_blocks(grid) if blocks is None else [tuple(b) for b in blocks]
    for block in chosen:
        if len(block) != len(grid) or any(not 0 <= b < g for b, g in zip(block, grid)):
            raise KernelError(func, f"block {block} is outside the grid {tuple(grid)}")

    # An Ascend kernel has no threads: its races are those of the compiled pipeline in
    # the pipe simulator, on the same inputs (see ascend_races).
    ascend_problems = None
    if check_races and is_ascend_kernel(func):
        initial = {name: b.element.from_storage(b.storage()).copy() for name, b in buffers.items()}
        ascend_problems = ascend_races(func, initial, index_args or {}, max_steps)
        check_races = False

    runtime = KernelRuntime(WorkLimit(max_steps))
    current = _CurrentOp()
    interpreter = Interpreter(module, index_bitwidth=64, listeners=(current,))
    interpreter.register_implementations(FuncFunctions())
    for functions in (
        ArithFunctions, ScfFunctions, MemRefFunctions, TileFunctions, SyncFunctions,
        WarpRoleFunctions,
    ):
        interpreter.register_implementations(functions(runtime))

    races: list[Race] = []
    between_blocks = GridConflicts()
    for block in chosen:
        tracker = RaceTracker(threads, block) if check_races else None
        runtime.machine = machine(threads, block, tracker)
        for buffer in buffers.values():
            buffer.allocation.shadow = None  # blocks are checked one at a time
        try:
            interpreter.call_op(func, tuple(args))
        except InterpretationError as err:
            raise KernelError(current.op, f"cannot be interpreted: {err}") from None
        runtime.machine.finish(func.body.blocks[-1].last_op)
        if tracker is not None:
            races.extend(tracker.races)
            between_blocks.block_finished(tracker, list(buffers.values()))
    races.extend(between_blocks.races)
    outputs = {
        name: buffer.element.from_storage(buffer.storage())
        for name, buffer in buffers.items()
    }
    return KernelRun(outputs, races if ascend_problems is None else ascend_problems)


def run_tile_kernel(
    module_or_text: ModuleOp | str,
    func_name: str | None = None,
    inputs: Mapping[str, np.ndarray] | None = None,
    *,
    seed: int = 0,
    blocks: Iterable[Sequence[int]] | None = None,
    index_args: Mapping[str, int] | None = None,
    check_races: bool = False,
    shapes: Mapping[str, Sequence[int]] | None = None,
    max_steps: int | None = None,
) -> dict[str, np.ndarray]:
    """Run a kernel over its whole ``tile.grid`` (or ``blocks``) and return the final
    contents of every memref argument, by argument name.

    Inputs not given are seeded random values (uniform in [-1, 1) for floats).  With
    ``check_races``, a race raises :class:`RaceError` listing every race found.
    """
    run = execute(
        module_or_text, func_name, inputs, seed=seed, blocks=blocks,
        index_args=index_args, check_races=check_races, shapes=shapes, max_steps=max_steps,
    )
    if run.races:
        raise RaceError(run.races)
    return run.outputs


def find_races(
    module_or_text: ModuleOp | str,
    func_name: str | None = None,
    inputs: Mapping[str, np.ndarray] | None = None,
    *,
    seed: int = 0,
    blocks: Iterable[Sequence[int]] | None = None,
    index_args: Mapping[str, int] | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
    max_steps: int | None = None,
) -> list[Race]:
    """Every pair of unordered conflicting accesses of one run, in the order found."""
    return execute(
        module_or_text, func_name, inputs, seed=seed, blocks=blocks,
        index_args=index_args, check_races=True, shapes=shapes, max_steps=max_steps,
    ).races


class RaceError(Exception):
    def __init__(self, races: list[Race]):
        self.races = races
        super().__init__(
            f"{len(races)} race(s) found:\n" + "\n".join(str(r) for r in races)
        )
