"""The lockstep machine of the NVVM interpreter: one block's threads, their SSA
values and memory, and the table of op handlers it dispatches to.  The handlers
register themselves from ``scalar_ops``, ``memory_ops``, ``control_flow`` and
``collectives``; the entry point and the design notes are in ``interp``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilepipe.core.diagnostics import op_location
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.nvvm.banks import BankCounter
from tilepipe.semantics.nvvm.races import GlobalRaceDetector, SharedRaceDetector
from tilepipe.semantics.work_limit import WorkLimit

SHARED_ADDRESS_BASE = 1 << 40  # fake addresses of shared memory (mbarriers, bulk copies)
GLOBAL_ADDRESS_STRIDE = 1 << 40  # global argument i lives at (i + 2) << 40
WARP = 32


class NvvmExecutionError(Exception):
    def __init__(self, op: Operation, message: str):
        where = op_location(op)
        super().__init__(f"{where or '<unknown>'}: '{op.name}' op {message}")


def numpy_dtype(element_type: Attribute) -> np.dtype:
    if isinstance(element_type, Float16Type):
        return np.dtype(np.float16)
    if isinstance(element_type, Float32Type | BFloat16Type):
        return np.dtype(np.float32)  # bf16 values are held as rounded f32
    if isinstance(element_type, Float64Type):
        return np.dtype(np.float64)
    if isinstance(element_type, IndexType):
        return np.dtype(np.int64)
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        return np.dtype(bool) if width == 1 else np.dtype(f"int{max(8, width)}")
    raise NotImplementedError(f"no numpy type for {element_type}")


@dataclass
class MemRef:
    """A buffer: global/shared arrays are shared by all threads, private ones are
    ``(threads, *shape)``."""

    array: np.ndarray
    space: str  # "global" | "shared" | "private"
    byte_offset: int = 0  # shared: offset of element 0 in the block's shared memory
    # bf16 in global and shared memory is stored as its 16-bit patterns (so that byte
    # offsets, sizes, bulk copies and the race detector see 2-byte elements); reads
    # give rounded f32, writes round to bf16.  Registers hold rounded f32.
    bf16_bits: bool = False
    # A global view (``memref.subview``): ``array`` is a numpy view of ``parent``, the
    # kernel argument, whose element ``origin`` is the view's element 0.
    parent: np.ndarray | None = None
    origin: tuple[int, ...] = ()

    @property
    def argument(self) -> np.ndarray:
        """The kernel argument a global buffer lies in."""
        return self.array if self.parent is None else self.parent

    def loaded(self, values: np.ndarray) -> np.ndarray:
        return bf16_bits_to_f32(values) if self.bf16_bits else values

    def stored(self, values: np.ndarray) -> np.ndarray:
        if self.bf16_bits:
            return round_f32_to_bf16_bits(np.asarray(values, np.float32))
        return np.asarray(values).astype(self.array.dtype)


class BlockExecution:
    """One block of a ``gpu.func`` kernel, all threads in lockstep (but the warp roles
    of a warp-specialized kernel, which run as concurrent agents: ``roles``)."""

    def __init__(
        self,
        kernel: Operation,
        args: Sequence[np.ndarray],
        block: Sequence[int],
        check_races: bool,
        banks: BankCounter | None = None,
        global_races: dict[int, GlobalRaceDetector] | None = None,
        work: WorkLimit | None = None,
    ):
        self.kernel = kernel
        self.work = work or WorkLimit()  # the run's, shared by its blocks
        self.threads = int(kernel.properties["known_block_size"].get_values()[0])
        self.block = tuple(block) + (0,) * (3 - len(block))
        self.values: dict[SSAValue, object] = {}
        self.pending: list = []  # collectives.PendingCopy
        self.groups_committed = np.zeros(self.threads, np.int64)
        self.mbarriers: dict = {}  # address -> collectives.MBarrierState
        # The warp roles running concurrently (a ``roles.RoleScheduler``), else None:
        # lockstep, where a wait that cannot complete now never will.
        self.roles = None
        # Each thread's register budget as ``setmaxregister`` set it (0: the kernel's
        # own, which ptxas decides and the model does not know).
        self.register_budget = np.zeros(self.threads, np.int64)
        # The threads executing the current op: ``uniform`` asks only them (a value
        # carried by a loop of one role is stale in the other role's threads).
        self.active = np.ones(self.threads, bool)
        # Asked before every op while set: registers an asynchronous op (a wgmma with A
        # in registers) still reads must not be touched (``wgmma_register_a``).
        self.register_check = None
        entry = kernel.regions[0].block
        inputs = len(kernel.properties["function_type"].inputs.data)
        shared_bytes = sum(a.type.element_count() for a in entry.args[inputs:])
        dynamic = kernel.attributes.get("tilepipe.dynamic_shared_memory")
        if isinstance(dynamic, IntegerAttr):
            shared_bytes = dynamic.value.data
        self.shared = np.zeros(shared_bytes, np.uint8)
        self.races = None
        if check_races:
            self.races = SharedRaceDetector(shared_bytes, self.threads)
        # argument index -> its detector (arguments the kernel writes), when checking
        self.global_races = global_races or {}
        self.banks = banks  # the bank-conflict model, shared by all blocks of a run
        self.global_arrays = list(args)
        for arg, array in zip(entry.args[:inputs], args):
            if isinstance(arg.type, IndexType | IntegerType):  # a scalar argument
                self.values[arg] = np.full(self.threads, int(np.asarray(array)), np.int64)
                continue
            if isinstance(arg.type, LLVMPointerType):  # a tensor map (tensor_copy)
                self.values[arg] = array
                continue
            self.values[arg] = MemRef(array, "global", 0, is_bf16_memref(arg.type))
        for arg in entry.args[inputs:]:
            self.values[arg] = MemRef(self.shared, "shared")

    # ------------------------------------------------------------------ driver

    def run(self) -> None:
        self.run_block(self.kernel.regions[0].block, np.ones(self.threads, bool))
        if self.pending:
            raise NvvmExecutionError(self.pending[0].op, "copy never waited for")

    def run_block(self, block: Block, mask: np.ndarray) -> list[object]:
        for op in block.ops:
            if op.name in ("scf.yield", "scf.condition"):
                return [self.values[v] for v in op.operands]
            handler = HANDLERS.get(op.name)
            if handler is None:
                raise NvvmExecutionError(op, "is not supported by the NVVM interpreter")
            self.active = mask
            if self.register_check is not None:
                self.register_check(self, op)
            try:
                results = handler(self, op, mask)
            except IndexError as err:
                raise NvvmExecutionError(op, str(err)) from None
            if results is not None:
                for result, value in zip(op.results, results):
                    self.values[result] = value
        return []

    def global_address(self, array: np.ndarray) -> int:
        """The (model) address of a global argument's first byte."""
        for index, candidate in enumerate(self.global_arrays):
            if candidate is array:
                return (index + 2) * GLOBAL_ADDRESS_STRIDE
        raise KeyError("not a kernel argument")

    def global_bytes(self, address: int, size: int) -> np.ndarray:
        """The bytes ``[address, address + size)`` of a global argument."""
        index, offset = divmod(address, GLOBAL_ADDRESS_STRIDE)
        raw = self.global_arrays[index - 2].reshape(-1).view(np.uint8)
        if not 0 <= offset <= raw.size - size:
            raise IndexError(f"out-of-bounds access of {size} global bytes")
        return raw[offset : offset + size]

    def __getitem__(self, value: SSAValue):
        return self.values[value]

    def uniform(self, op: Operation, value: SSAValue) -> int:
        """``value``, the same in every thread that executes ``op``."""
        array = np.asarray(self.values[value])
        if array.shape[:1] == (self.threads,) and self.active.any() and not self.active.all():
            array = array[self.active]
        if not (array == array.flat[0]).all():
            raise NvvmExecutionError(op, "needs a value that is the same in every thread")
        return int(array.flat[0])

    def uniform_in(self, op: Operation, value: SSAValue, threads: slice) -> int:
        """``value``, the same in each of ``threads``."""
        array = np.asarray(self.values[value])[threads]
        if not (array == array.flat[0]).all():
            raise NvvmExecutionError(op, "needs a value that is the same in every thread of a warpgroup")
        return int(array.flat[0])

    def require_converged(self, op: Operation, mask: np.ndarray) -> None:
        if not mask.all():
            raise NvvmExecutionError(op, "executed by only some threads (divergent control flow)")

    # ------------------------------------------------------------------ memory

    def element_index(
        self, memref: MemRef, indices: Sequence[np.ndarray], extent: int, mask: np.ndarray
    ):
        """Per-thread index tuples of ``extent`` consecutive elements (inactive
        threads, whose indices may be anything, get index 0)."""
        idx = [np.where(mask, np.asarray(i, np.int64), 0) for i in indices]
        idx[-1] = idx[-1][:, None] + np.arange(extent)[None, :]
        idx[:-1] = [i[:, None] for i in idx[:-1]]
        shape = memref.array.shape[1:] if memref.space == "private" else memref.array.shape
        for i, dim in zip(idx, shape):
            if ((i < 0) | (i >= dim)).any():
                raise IndexError(f"out-of-bounds access to a dimension of size {dim}")
        if memref.space == "private":
            return (np.arange(self.threads)[:, None], *idx)
        return tuple(idx)

    def shared_bytes_of(self, memref: MemRef, index: tuple[np.ndarray, ...]) -> np.ndarray:
        flat = np.ravel_multi_index(tuple(np.broadcast_arrays(*index)), memref.array.shape)
        return memref.byte_offset + flat * memref.array.itemsize

    def shared_access(
        self, op: Operation, memref: MemRef, index, mask: np.ndarray, write: bool,
        bank_mask: np.ndarray | None = None,
    ) -> None:
        """Feed the race detector and the bank model (when on) with the shared-memory
        access of the elements ``index`` (``(threads, extent)``) by the ``mask``
        threads; the bank model counts the ``bank_mask`` threads (default: ``mask``)."""
        if memref.space == "global" and self.global_races:
            return self._global_access(op, memref, index, mask, write)
        if memref.space != "shared" or (self.races is None and self.banks is None):
            return
        starts = self.shared_bytes_of(memref, index)  # (threads, extent), contiguous rows
        if self.banks is not None:
            nbytes = starts.shape[-1] * memref.array.itemsize
            lanes = mask if bank_mask is None else bank_mask
            self.banks.record(op.name, starts.reshape(self.threads, -1)[:, 0], nbytes, lanes)
        if self.races is not None:
            threads = np.repeat(np.flatnonzero(mask), starts.shape[-1])
            self.races.access(op, threads, starts[mask].ravel(), memref.array.itemsize, write)

    def _global_access(self, op: Operation, memref: MemRef, index, mask: np.ndarray, write: bool) -> None:
        argument = next(i for i, a in enumerate(self.global_arrays) if a is memref.argument)
        detector = self.global_races.get(argument)
        if detector is not None:
            if memref.parent is not None:  # a view: index the argument itself
                index = tuple(i + o for i, o in zip(index, memref.origin))
                memref = MemRef(memref.parent, "global")
            starts = self.shared_bytes_of(memref, index)  # byte offsets in the argument
            threads = np.repeat(np.flatnonzero(mask), starts.shape[-1])
            detector.access(op, threads, starts[mask].ravel(), memref.array.itemsize, write)

    def read(
        self, op: Operation, memref: MemRef, indices, mask: np.ndarray, extent: int = 1,
        bank_mask: np.ndarray | None = None,
    ) -> np.ndarray:
        index = self.element_index(memref, indices, extent, mask)
        values = memref.loaded(memref.array[index])
        self.shared_access(op, memref, index, mask, False, bank_mask)
        return values

    def write(self, op: Operation, memref: MemRef, indices, values: np.ndarray, mask: np.ndarray, extent: int = 1) -> None:
        index = self.element_index(memref, indices, extent, mask)
        values = memref.stored(np.asarray(values).reshape(self.threads, extent))
        self.shared_access(op, memref, index, mask, True)
        active = tuple(i[mask] for i in np.broadcast_arrays(*index))
        memref.array[active] = values[mask]


# ---------------------------------------------------------------------- handlers

# op name -> handler(ex, op, mask) returning the op's results (or None)
HANDLERS: dict[str, object] = {}


def handles(*names: str):
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn

    return register


def is_bf16_memref(type_: Attribute) -> bool:
    return isinstance(getattr(type_, "element_type", None), BFloat16Type)
