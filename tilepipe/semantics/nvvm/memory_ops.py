"""NVVM interpreter handlers of the memory ops: shared-memory views, windows of
global arguments, private allocations, scalar and vector loads and stores (held
to their alignment claims), pointers, ``memref.dim`` and atomic adds to global
memory (``llvm.atomicrmw``)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, BFloat16Type

from tilepipe.semantics import numerics
from tilepipe.semantics.nvvm.execution import (
    GLOBAL_ADDRESS_STRIDE,
    SHARED_ADDRESS_BASE,
    MemRef,
    NvvmExecutionError,
    handles,
    numpy_dtype,
)


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
    unit strides (what ``lowering/nvvm/copy.py`` builds): a numpy view, so reads see the array,
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


@handles("memref.extract_aligned_pointer_as_index")
def _pointer(ex, op, mask):
    memref: MemRef = ex[op.operands[0]]
    if memref.space == "shared":
        return [np.full(ex.threads, SHARED_ADDRESS_BASE + memref.byte_offset, np.int64)]
    if memref.space == "global":  # a view's aligned pointer is its argument's
        return [np.full(ex.threads, ex.global_address(memref.argument), np.int64)]
    raise NvvmExecutionError(op, "has no address in the model (private memory)")


@handles("memref.dim")
def _dim(ex, op, mask):
    """A size of a memref descriptor: the argument array's (dynamic shapes)."""
    memref: MemRef = ex[op.operands[0]]
    shape = memref.array.shape[1:] if memref.space == "private" else memref.array.shape
    dim = ex.uniform(op, op.operands[1])
    if not 0 <= dim < len(shape):
        raise NvvmExecutionError(op, f"has no dimension {dim}")
    return [np.full(ex.threads, shape[dim], np.int64)]


@handles("llvm.atomicrmw")
def _atomic_rmw(ex, op, mask):
    """An atomic add (``add``/``fadd``) at each active thread's global address, in
    lane order -- one of the orders the hardware may pick, and the tile level's for
    a tile.atomic_add (each element has one updating thread per op); the result is
    each thread's old value.  The sum is rounded once (``numerics.atomic_add``)."""
    if op.bin_op_name not in ("add", "fadd"):
        raise NvvmExecutionError(op, f"'{op.bin_op_name}' is not modeled")
    dtype = numpy_dtype(op.operands[1].type)
    if isinstance(op.operands[1].type, BFloat16Type):
        raise NvvmExecutionError(op, "of bf16 is not modeled")
    addresses = np.asarray(ex[op.operands[0]], np.int64)
    values = np.asarray(ex[op.operands[1]]).astype(dtype)
    old = np.zeros(ex.threads, dtype)
    # A round updates each address once (its lowest pending lane), so the rounds
    # apply the updates of one address in lane order.
    pending = np.flatnonzero(mask)
    while pending.size:
        _, first = np.unique(addresses[pending], return_index=True)
        lanes = pending[first]
        for argument in np.unique(addresses[lanes] // GLOBAL_ADDRESS_STRIDE):
            mine = lanes[addresses[lanes] // GLOBAL_ADDRESS_STRIDE == argument]
            _atomic_add_round(ex, op, int(argument), mine, addresses, values, old, dtype)
        pending = np.delete(pending, first)
    return [old]


def _atomic_add_round(ex, op, argument, lanes, addresses, values, old, dtype) -> None:
    if argument < 2:
        raise NvvmExecutionError(op, "updates memory other than a global argument (not modeled)")
    offsets = addresses[lanes] % GLOBAL_ADDRESS_STRIDE
    if (offsets % dtype.itemsize).any():
        raise NvvmExecutionError(op, f"address is not {dtype.itemsize}-byte aligned")
    array = ex.global_arrays[argument - 2]
    flat = array.reshape(-1).view(np.uint8)
    if (offsets < 0).any() or (offsets + dtype.itemsize > flat.size).any():
        raise NvvmExecutionError(op, "updates bytes outside its global argument")
    elements = flat.view(dtype)
    index = offsets // dtype.itemsize
    old[lanes] = elements[index]
    elements[index] = numerics.atomic_add(elements[index], values[lanes]).astype(dtype)
    detector = ex.global_races.get(argument - 2)
    if detector is not None:
        detector.access(op, lanes, offsets, dtype.itemsize, True, atomic=True)
