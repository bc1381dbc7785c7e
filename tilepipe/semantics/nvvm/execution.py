"""The lockstep machine of the NVVM interpreter: one block's threads, its memory
and the handlers of the scalar, memory and control-flow ops (the synchronizing and
warp-collective ops register theirs from ``collectives``).  The entry point and the
design notes are in ``interp``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tilepipe.core.diagnostics import op_location
from tilepipe.semantics import numerics
from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.nvvm.banks import BankCounter
from tilepipe.semantics.nvvm.races import GlobalRaceDetector, SharedRaceDetector
from tilepipe.semantics.work_limit import WorkLimit, trip_count

SHARED_ADDRESS_BASE = 1 << 40  # fake addresses of shared memory (mbarriers, bulk copies)
GLOBAL_ADDRESS_STRIDE = 1 << 40  # global argument i lives at (i + 2) << 40
WARP = 32
WHILE_LIMIT = 100_000


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
    """One block of a ``gpu.func`` kernel, all threads in lockstep."""

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
        array = np.asarray(self.values[value])
        if not (array == array.flat[0]).all():
            raise NvvmExecutionError(op, "needs a value that is the same in every thread")
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

HANDLERS: dict[str, object] = {}


def handles(*names: str):
    def register(fn):
        for name in names:
            HANDLERS[name] = fn
        return fn

    return register


def _splat(ex: BlockExecution, value, result_type: Attribute) -> np.ndarray:
    if isinstance(result_type, VectorType):
        shape = (ex.threads, *result_type.get_shape())
        return np.full(shape, value, numpy_dtype(result_type.element_type))
    return np.full(ex.threads, value, numpy_dtype(result_type))


@handles("arith.constant")
def _constant(ex, op, mask):
    attr = op.properties["value"]
    if isinstance(attr, FloatAttr | IntegerAttr):
        return [_splat(ex, attr.value.data, op.results[0].type)]
    raise NvvmExecutionError(op, f"unsupported constant {attr}")


_INT_BINARY = {
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.divui": np.floor_divide, "arith.divsi": lambda a, b: np.trunc(a / b).astype(a.dtype),
    "arith.remui": np.remainder, "arith.remsi": np.fmod, "arith.andi": np.bitwise_and,
    "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor, "arith.maxsi": np.maximum,
    "arith.minsi": np.minimum, "arith.maxui": np.maximum, "arith.minui": np.minimum,
    # Index arithmetic the pipelining passes build for dynamic trip counts (upstream's
    # arith-to-llvm expands them); unsigned operands are non-negative index values.
    "arith.ceildivsi": lambda a, b: -np.floor_divide(-a, b),
    "arith.ceildivui": lambda a, b: -np.floor_divide(-a, b),
    "arith.floordivsi": np.floor_divide,
}
_DIVISIONS = frozenset(
    {"arith.divui", "arith.divsi", "arith.remui", "arith.remsi", "arith.ceildivsi",
     "arith.ceildivui", "arith.floordivsi"}
)
_FLOAT_BINARY = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
}


_DIVISIONS = (
    "arith.divui", "arith.divsi", "arith.remui", "arith.remsi",
    "arith.ceildivui", "arith.ceildivsi", "arith.floordivsi",
)


@handles(*_INT_BINARY, *_FLOAT_BINARY)
def _binary(ex, op, mask):
    fn = _INT_BINARY.get(op.name) or _FLOAT_BINARY[op.name]
    lhs, rhs = ex[op.operands[0]], ex[op.operands[1]]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if op.name in _DIVISIONS:
            rhs = np.where(rhs == 0, 1, rhs)  # inactive lanes may divide by zero
        return [fn(lhs, rhs).astype(lhs.dtype)]


_CMPI = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
         np.less, np.less_equal, np.greater, np.greater_equal]


@handles("arith.cmpi")
def _cmpi(ex, op, mask):
    return [_CMPI[op.properties["predicate"].value.data](ex[op.operands[0]], ex[op.operands[1]])]


@handles("arith.index_cast", "arith.extf", "arith.truncf")
def _cast(ex, op, mask):
    result_type = op.results[0].type
    if isinstance(result_type, VectorType):
        result_type = result_type.element_type
    return [ex[op.operands[0]].astype(numpy_dtype(result_type))]


@handles("math.exp")
def _exp(ex, op, mask):
    source = ex[op.operands[0]]
    return [numerics.exp(source).astype(source.dtype)]


@handles("arith.select")
def _select(ex, op, mask):
    cond, a, b = (ex[v] for v in op.operands)
    return [np.where(cond, a, b)]


@handles("gpu.thread_id")
def _thread_id(ex, op, mask):
    dim = op.properties["dimension"].data.value
    return [np.arange(ex.threads, dtype=np.int64) if dim == "x" else np.zeros(ex.threads, np.int64)]


@handles("gpu.block_id")
def _block_id(ex, op, mask):
    return [np.full(ex.threads, ex.block["xyz".index(op.properties["dimension"].data.value)], np.int64)]


@handles("gpu.return")
def _return(ex, op, mask):
    return None


@handles("gpu.dynamic_shared_memory", "memref.memory_space_cast")
def _shared_base(ex, op, mask):
    return [MemRef(ex.shared, "shared")] if not op.operands else [ex[op.operands[0]]]


@handles("memref.view")
def _view(ex, op, mask):
    base: MemRef = ex[op.operands[0]]
    offset = base.byte_offset + ex.uniform(op, op.operands[1])
    result_type = op.results[0].type
    bf16 = isinstance(result_type.element_type, BFloat16Type)
    dtype = np.dtype(np.uint16) if bf16 else numpy_dtype(result_type.element_type)
    count = result_type.element_count()
    raw = ex.shared[offset : offset + count * dtype.itemsize]
    return [MemRef(raw.view(dtype).reshape(result_type.get_shape()), "shared", offset, bf16)]


@handles("memref.subview")
def _subview(ex, op, mask):
    """A window of a global array at (block-uniform) offsets, of static sizes and
    unit strides (what ``nvvm_copy`` builds): a numpy view, so reads see the array,
    that remembers its origin for addresses and the race detector."""
    base: MemRef = ex[op.operands[0]]
    sizes = op.properties["static_sizes"].get_values()
    strides = op.properties["static_strides"].get_values()
    if base.space != "global" or base.parent is not None or DYNAMIC_INDEX in sizes or any(
        s != 1 for s in strides
    ):
        raise NvvmExecutionError(
            op, "is supported only as a unit-stride, static-size window of a global argument"
        )
    dynamic = iter(op.operands[1:])
    origin = tuple(
        ex.uniform(op, next(dynamic)) if o == DYNAMIC_INDEX else o
        for o in op.properties["static_offsets"].get_values()
    )
    for start, size, extent in zip(origin, sizes, base.array.shape):
        if not 0 <= start <= extent - size:
            raise NvvmExecutionError(op, f"window [{start}, {start + size}) leaves a dimension of size {extent}")
    window = tuple(slice(o, o + n) for o, n in zip(origin, sizes))
    return [MemRef(base.array[window], "global", 0, base.bf16_bits, base.array, origin)]


IDENTITY_ASM = ("mov.b32 $0, $1;", "=r,r")
"""The one inline assembly the lowering emits (``nvvm_induction``): a 32-bit move."""


@handles("llvm.inline_asm")
def _inline_asm(ex, op, mask):
    text = (op.properties["asm_string"].data, op.properties["constraints"].data)
    if text != IDENTITY_ASM:
        raise NvvmExecutionError(op, f"runs PTX the interpreter does not model: {text[0]!r}")
    return [ex[op.operands[0]].copy()]


@handles("memref.alloca")
def _alloca(ex, op, mask):
    result_type = op.results[0].type
    dtype = numpy_dtype(result_type.element_type)
    fill = np.nan if dtype.kind == "f" else 0  # uninitialised registers read as NaN
    return [MemRef(np.full((ex.threads, *result_type.get_shape()), fill, dtype), "private")]


@handles("memref.load")
def _load(ex, op, mask):
    values = ex.read(op, ex[op.operands[0]], [ex[v] for v in op.operands[1:]], mask)
    return [values[:, 0]]


@handles("memref.store")
def _store(ex, op, mask):
    ex.write(op, ex[op.operands[1]], [ex[v] for v in op.operands[2:]], ex[op.operands[0]], mask)


def _check_alignment(ex, op, memref: MemRef, indices, mask) -> None:
    """A vector access claims ``alignment`` bytes; on a GPU a false claim faults
    (or silently splits), so the interpreter holds the lowering to it.  Buffer
    bases count as 16-byte aligned, as the lowering assumes."""
    alignment = op.properties.get("alignment")
    if alignment is None:
        return
    buffer_type = op.operands[0 if op.name == "vector.load" else 1].type
    element_bytes = buffer_type.element_type.bitwidth // 8  # as the GPU lays it out
    index = ex.element_index(memref, indices, 1, mask)
    shape = memref.array.shape[1:] if memref.space == "private" else memref.array.shape
    flat = np.ravel_multi_index(tuple(i.ravel() for i in index[-len(shape):]), shape)
    offsets = memref.byte_offset + flat * element_bytes
    if (offsets[mask] % alignment.value.data).any():
        raise NvvmExecutionError(
            op, f"vector access is not {alignment.value.data}-byte aligned"
        )


@handles("vector.load")
def _vector_load(ex, op, mask):
    memref, indices = ex[op.operands[0]], [ex[v] for v in op.operands[1:]]
    _check_alignment(ex, op, memref, indices, mask)
    width = op.results[0].type.get_shape()[0]
    return [ex.read(op, memref, indices, mask, width)]


@handles("vector.store")
def _vector_store(ex, op, mask):
    value = ex[op.operands[0]]
    memref, indices = ex[op.operands[1]], [ex[v] for v in op.operands[2:]]
    _check_alignment(ex, op, memref, indices, mask)
    ex.write(op, memref, indices, value, mask, value.shape[1])


@handles("vector.shape_cast")
def _shape_cast(ex, op, mask):
    return [ex[op.operands[0]].reshape(ex.threads, *op.results[0].type.get_shape())]


@handles("vector.broadcast")
def _broadcast(ex, op, mask):
    shape = op.results[0].type.get_shape()
    source = ex[op.operands[0]]
    return [np.broadcast_to(source.reshape(ex.threads, *([1] * len(shape))), (ex.threads, *shape)).copy()]


def _position(op: Operation) -> tuple[int, ...]:
    attr = op.properties["static_position"]
    assert isinstance(attr, DenseArrayBase)
    return tuple(attr.get_values())


@handles("vector.insert")
def _insert(ex, op, mask):
    dest = ex[op.operands[1]].copy()
    dest[(slice(None), *_position(op))] = ex[op.operands[0]]
    return [dest]


@handles("vector.extract")
def _extract(ex, op, mask):
    return [ex[op.operands[0]][(slice(None), *_position(op))].copy()]


@handles("vector.extract_strided_slice")
def _extract_strided_slice(ex, op, mask):
    """Rows ``offsets[0] .. + sizes[0]`` of the leading dimension (unit strides)."""
    (offset,) = (a.value.data for a in op.properties["offsets"].data)
    (size,) = (a.value.data for a in op.properties["sizes"].data)
    return [ex[op.operands[0]][:, offset : offset + size].copy()]


@handles("llvm.extractvalue")
def _extractvalue(ex, op, mask):
    """Structs (the result of ``nvvm.mma.sync``) are held as ``(threads, fields)``."""
    position = tuple(op.properties["position"].get_values())
    return [ex[op.operands[0]][(slice(None), *position)].copy()]


@handles("memref.extract_aligned_pointer_as_index")
def _pointer(ex, op, mask):
    memref: MemRef = ex[op.operands[0]]
    if memref.space == "shared":
        return [np.full(ex.threads, SHARED_ADDRESS_BASE + memref.byte_offset, np.int64)]
    if memref.space == "global":  # a view's aligned pointer is its argument's
        return [np.full(ex.threads, ex.global_address(memref.argument), np.int64)]
    raise NvvmExecutionError(op, "has no address in the model (private memory)")


@handles("llvm.inttoptr")
def _inttoptr(ex, op, mask):
    return [ex[op.operands[0]].astype(np.int64)]


# ------------------------------------------------------------------ control flow


@handles("scf.for")
def _for(ex, op, mask):
    lb, ub, step = (ex.uniform(op, v) for v in op.operands[:3])
    carried = [ex[v] for v in op.operands[3:]]
    body = op.regions[0].block
    if step > 0 and (problem := ex.work.charge(trip_count(lb, ub, step))) is not None:
        raise NvvmExecutionError(op, problem)
    for i in range(lb, ub, step):
        ex.values[body.args[0]] = np.full(ex.threads, i, np.int64)
        for arg, value in zip(body.args[1:], carried):
            ex.values[arg] = value
        yielded = ex.run_block(body, mask)
        carried = [np.where(_lanes(mask, y), y, c) for y, c in zip(yielded, carried)]
    return carried


def _lanes(mask: np.ndarray, value: np.ndarray) -> np.ndarray:
    return mask.reshape(mask.shape + (1,) * (np.ndim(value) - 1))


@handles("scf.if")
def _if(ex, op, mask):
    """Both branches run under their masks; a result takes, per thread, the value
    its branch yielded (a predicated load: the loaded element inside, else 0)."""
    condition = ex[op.operands[0]].astype(bool)
    results = [None] * len(op.results)
    for region, taken in ((op.regions[0], mask & condition), (op.regions[1], mask & ~condition)):
        if not region.blocks or not taken.any():
            continue
        yielded = ex.run_block(region.block, taken)
        results = [
            y if r is None else np.where(_lanes(taken, y), y, r)
            for y, r in zip(yielded, results)
        ]
    if op.results:
        return [
            r if r is not None else _undefined(ex, result.type)
            for r, result in zip(results, op.results)
        ]


def _undefined(ex, result_type: Attribute) -> np.ndarray:
    """The value of an ``scf.if`` result no active thread computed."""
    shape = result_type.get_shape() if isinstance(result_type, VectorType) else ()
    dtype = numpy_dtype(getattr(result_type, "element_type", result_type))
    return np.zeros((ex.threads, *shape), dtype)


@handles("memref.dim")
def _dim(ex, op, mask):
    """A size of a memref descriptor: the argument array's (dynamic shapes)."""
    memref: MemRef = ex[op.operands[0]]
    shape = memref.array.shape[1:] if memref.space == "private" else memref.array.shape
    dim = ex.uniform(op, op.operands[1])
    if not 0 <= dim < len(shape):
        raise NvvmExecutionError(op, f"has no dimension {dim}")
    return [np.full(ex.threads, shape[dim], np.int64)]


@handles("scf.while")
def _while(ex, op, mask):
    """Masked loop.  A polling loop (empty body) whose threads all keep polling is a
    deadlock: in lockstep nothing else can run meanwhile to change the answer."""
    active = mask.copy()
    polling = len(op.regions[1].block.ops) == 1
    for _ in range(WHILE_LIMIT):
        (condition, *_rest) = ex.run_block(op.regions[0].block, active)
        still = active & condition.astype(bool)
        if not still.any():
            return []
        if polling and (still == active).all():
            raise NvvmExecutionError(op, "polls a condition that can never change (deadlock)")
        active = still
        ex.run_block(op.regions[1].block, active)
    raise NvvmExecutionError(op, f"did not terminate in {WHILE_LIMIT} iterations")


def is_bf16_memref(type_: Attribute) -> bool:
    return isinstance(getattr(type_, "element_type", None), BFloat16Type)
