"""The synchronizing and warp-collective ops of the NVVM interpreter: ``cp.async``
copies and groups, barriers, mbarriers, ``ldmatrix``, ``mma.sync``; the race detectors
they feed are in ``races``.

The fragment layouts are the PTX ISA's, written here independently of the lowering so
that running a lowered kernel checks it:

* ``ldmatrix .m8n8 .x{1,2,4} [.trans] .b16``: lanes ``8i..8i+7`` give the row
  addresses of matrix ``i``; lane ``t`` receives row ``t/4``, columns ``2(t%4)``,
  ``2(t%4)+1`` of each matrix (of its transpose with ``.trans``);
* ``mma.m16n8k16`` (f16/bf16 -> f32; ``nvgpu.mma.sync`` with vector fragments, or
  ``nvvm.mma.sync`` with bf16 pairs packed in i32 registers, lower half first): A
  ``a0..a7`` = rows ``g`` / ``g+8`` and columns ``2c+{0,1}`` / ``2c+8+{0,1}``
  (g = lane/4, c = lane%4), B ``b0..b3`` = rows ``2c+{0,1}`` / ``2c+8+{0,1}`` of column
  ``g``, C/D ``c0..c3`` = row ``g`` / ``g+8``, columns ``2c+{0,1}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, VectorType, i32
from xdsl.ir import Operation


from tilepipe.semantics.memory import bf16_bits_to_f32, round_f32_to_bf16_bits
from tilepipe.semantics.numerics import gemm_accumulate
from tilepipe.semantics.nvvm.wgmma_state import state_of
from tilepipe.semantics.nvvm.execution import (
    SHARED_ADDRESS_BASE,
    WARP,
    BlockExecution,
    MemRef,
    NvvmExecutionError,
    numpy_dtype,
    handles,
)


@dataclass
class PendingCopy:
    threads: np.ndarray  # issuing thread of each element
    group: np.ndarray  # the issuing thread's group number, -1 while uncommitted
    target: MemRef
    index: tuple[np.ndarray, ...]
    values: np.ndarray
    op: Operation


@dataclass
class MBarrierState:
    count: int
    pending: int
    phase: int = 0
    tx_bytes: int = 0

    def maybe_complete(self) -> bool:
        if self.pending <= 0 and self.tx_bytes == 0:
            self.phase += 1
            self.pending = self.count
            return True
        return False

    def completed(self, parity: int) -> bool:
        """Has the phase of ``parity`` completed (the current one has the other)?"""
        return self.phase % 2 != parity % 2


def _settle(ex: BlockExecution, address: int, state: MBarrierState) -> None:
    """Complete the current phase if its arrivals and bytes are all in: what they
    released is what a wait that observes the phase acquires."""
    if state.maybe_complete() and ex.races is not None:
        ex.races.phase_completed(address - SHARED_ADDRESS_BASE)


def land(ex: BlockExecution, op: Operation, threads: np.ndarray, keep_newest: int) -> None:
    """Land the copies of ``threads`` except their newest ``keep_newest`` groups."""
    remaining = []
    for copy in ex.pending:
        limit = ex.groups_committed[copy.threads] - keep_newest
        done = np.isin(copy.threads, threads) & (copy.group >= 0) & (copy.group < limit)
        if done.any():
            index = tuple(i[done] for i in copy.index)
            copy.target.array[index] = copy.target.stored(copy.values[done])
            if ex.races is not None:
                starts = ex.shared_bytes_of(copy.target, index)
                ex.races.async_write(starts, copy.target.array.itemsize, in_flight=False)
                ex.races.access(op, copy.threads[done], starts, copy.target.array.itemsize, True)
        if not done.all():
            keep = ~done
            remaining.append(
                PendingCopy(copy.threads[keep], copy.group[keep], copy.target,
                            tuple(i[keep] for i in copy.index), copy.values[keep], copy.op)
            )
    ex.pending = remaining


# ------------------------------------------------------------------ async copies, barriers


@handles("nvgpu.device_async_copy")
def _async_copy(ex, op, mask):
    count = op.properties["dstElements"].value.data
    _, dst_rank, _, src_rank, _ = op.properties["operandSegmentSizes"].get_values()
    dst, src = ex[op.operands[0]], ex[op.operands[1 + dst_rank]]
    dst_idx = [ex[v] for v in op.operands[1 : 1 + dst_rank]]
    src_idx = [ex[v] for v in op.operands[2 + dst_rank : 2 + dst_rank + src_rank]]
    values = _read_zero_filled(ex, op, src, src_idx, mask, count)[mask]
    dst_index = ex.element_index(dst, dst_idx, count, mask)
    ex.shared_access(op, dst, dst_index, mask, write=True)  # at issue: until it lands
    index = tuple(i[mask] for i in np.broadcast_arrays(*dst_index))
    if ex.races is not None and dst.space == "shared":
        ex.races.async_write(ex.shared_bytes_of(dst, index), dst.array.itemsize, in_flight=True)
    threads = np.repeat(np.flatnonzero(mask), count)
    flat_index = tuple(i.ravel() for i in index)
    ex.pending.append(PendingCopy(threads, np.full(threads.size, -1), dst, flat_index, values.ravel(), op))
    return [None]


def _read_zero_filled(ex, op, src, src_idx, mask, count: int) -> np.ndarray:
    """The ``count`` source elements of each thread's copy; with ``srcElements``
    (PTX's src-size) only the first ``srcElements`` are read, the rest are zeros."""
    if op.properties["operandSegmentSizes"].get_values()[-1] == 0:
        return ex.read(op, src, src_idx, mask, count)
    read = np.asarray(ex[op.operands[-1]], np.int64)
    if ((read < 0) | (read > count)).any():
        raise NvvmExecutionError(op, f"srcElements outside [0, {count}]")
    values = np.zeros((ex.threads, count), numpy_dtype(op.operands[0].type.element_type))
    for element in range(count):
        lanes = mask & (element < read)
        if lanes.any():
            at = [*src_idx[:-1], np.asarray(src_idx[-1]) + element]
            values[lanes, element] = ex.read(op, src, at, lanes)[lanes, 0]
    return values


@handles("nvgpu.device_async_create_group", "nvvm.cp.async.commit.group")
def _commit(ex, op, mask):
    threads = np.flatnonzero(mask)
    for copy in ex.pending:
        open_ = (copy.group < 0) & np.isin(copy.threads, threads)
        copy.group[open_] = ex.groups_committed[copy.threads[open_]]
    ex.groups_committed[threads] += 1
    return [None] if op.results else None


@handles("nvgpu.device_async_wait", "nvvm.cp.async.wait.group")
def _wait(ex, op, mask):
    attr = op.properties.get("n") or op.properties.get("numGroups")
    land(ex, op, np.flatnonzero(mask), attr.value.data if attr is not None else 0)


@handles("nvvm.fence.proxy")
def _fence_proxy(ex, op, mask):
    """``fence.proxy.async.shared::cta`` (the only kind tilepipe emits)."""
    if ex.races is not None:
        ex.races.proxy_fence(np.flatnonzero(mask))


@handles("nvvm.barrier0", "nvvm.barrier")
def _barrier(ex, op, mask):
    participants = _barrier_participants(ex, op, mask)
    if participants is not None and participants.size == 0:
        return  # no fixed grouping of the arriving warps: it orders nothing
    if ex.races is not None:
        ex.races.barrier(participants)
    for detector in ex.global_races.values():
        detector.barrier(participants)


def _barrier_participants(ex: BlockExecution, op: Operation, mask: np.ndarray):
    """The threads a ``bar.sync`` orders with each other (None: the whole block).

    The hardware counts arriving warps, not thread ids (PTX ISA, "bar, barrier"):
    ``bar.sync id, N`` completes each time N/32 warps have arrived, and ``.aligned``
    wants every thread of an arriving warp there.  So the warps that execute it must
    be whole and, with a count, a multiple of N/32 of them: otherwise the last
    warps wait forever.  Exactly N/32 warps are ordered with each other; more are
    grouped by arrival order, which nothing fixes, so no two warps are known to be
    ordered (an empty participant set)."""
    warp_of = np.arange(mask.size) // WARP  # the last warp of a block may be short
    active = np.bincount(warp_of, weights=mask)
    arriving = active > 0
    partial = np.flatnonzero(arriving & (active < np.bincount(warp_of)))
    if partial.size:
        raise NvvmExecutionError(
            op, f"executed by part of warp {int(partial[0])}: a barrier counts whole warps"
        )
    count = None
    if op.name == "nvvm.barrier" and len(op.operands) == 2:
        count = ex.uniform(op, op.operands[1])
    arrived = int(arriving.sum())
    if count is None:
        if not arriving.all():
            raise NvvmExecutionError(op, "not reached by all threads of the block")
        return None
    if count % WARP or count <= 0:
        raise NvvmExecutionError(op, f"thread count {count} is not a multiple of {WARP}")
    per_completion = count // WARP
    if arrived % per_completion:
        raise NvvmExecutionError(
            op,
            f"{arrived} warps arrive at a barrier that completes every "
            f"{per_completion} warps ({count} threads): the last "
            f"{arrived % per_completion} wait forever",
        )
    if arrived > per_completion:
        return np.zeros(0, np.int64)
    return np.flatnonzero(arriving[warp_of])


# ------------------------------------------------------------------ warp collectives


def _warps(ex: BlockExecution, op: Operation, mask: np.ndarray):
    """The warps executing ``op``, every lane of each: PTX's warp collectives need the
    warp converged, not the block (a gemm over fewer warps than the block has runs
    them under a warp-uniform branch)."""
    per_warp = mask.reshape(-1, WARP)
    if not (per_warp.all(axis=1) | ~per_warp.any(axis=1)).all():
        raise NvvmExecutionError(
            op, "executed by only some lanes of a warp (divergent control flow)"
        )
    return [slice(w * WARP, (w + 1) * WARP) for w in np.flatnonzero(per_warp[:, 0])]


@handles("nvgpu.ldmatrix")
def _ldmatrix(ex, op, mask):
    tiles = op.properties["numTiles"].value.data
    transpose = bool(op.properties["transpose"].value.data)
    memref: MemRef = ex[op.operands[0]]
    # The bank model counts the lanes whose row addresses .x{1,2,4} uses.
    used = mask & (np.arange(ex.threads) % WARP < 8 * tiles)
    indices = [ex[v] for v in op.operands[1:]]
    # PTX: every row address ldmatrix uses is 16-byte aligned (8 b16 elements).
    starts = ex.shared_bytes_of(memref, ex.element_index(memref, indices, 1, used))
    if (starts[used] % 16).any():
        raise NvvmExecutionError(op, "ldmatrix row address is not 16-byte aligned")
    rows = ex.read(op, memref, indices, mask, 8, used)  # (threads, 8)
    result = np.zeros((ex.threads, tiles, 2), rows.dtype)  # idle warps' stay zero
    lane = np.arange(WARP)
    for warp in _warps(ex, op, mask):
        for i in range(tiles):
            matrix = rows[warp][8 * i : 8 * i + 8]  # row r given by lane 8i+r
            if transpose:
                matrix = matrix.T
            result[warp, i, 0] = matrix[lane // 4, 2 * (lane % 4)]
            result[warp, i, 1] = matrix[lane // 4, 2 * (lane % 4) + 1]
    return [result]


@handles("nvgpu.mma.sync")
def _mma(ex, op, mask):
    if tuple(a.value.data for a in op.properties["mmaShape"].data) != (16, 8, 16):
        raise NvvmExecutionError(op, "only mma.m16n8k16 is modelled")
    a, b, c = (ex[v] for v in op.operands)
    return [_mma_m16n8k16(ex, op, mask, a, b, c)]


@handles("llvm.bitcast")
def _bitcast(ex, op, mask):
    """A ``vector<2xbf16>`` or ``vector<2xf16>`` pair to the i32 register PTX wants
    (element 0 in the low half); bf16 values are held as rounded f32, so the bits are
    recomputed.  When it was written is kept: a wgmma may read it (A in registers)."""
    source = op.operands[0].type
    if not (
        isinstance(source, VectorType)
        and isinstance(source.element_type, BFloat16Type | Float16Type)
        and source.get_shape() == (2,)
        and op.results[0].type == i32
    ):
        raise NvvmExecutionError(op, "only vector<2xbf16> or vector<2xf16> -> i32 is modelled")
    if isinstance(source.element_type, BFloat16Type):
        bits = round_f32_to_bf16_bits(ex[op.operands[0]]).astype(np.uint32)
    else:
        bits = np.asarray(ex[op.operands[0]], np.float16).view(np.uint16).astype(np.uint32)
    state = state_of(ex)
    state.built_at[op.results[0]] = state.tick()
    return [(bits[:, 0] | (bits[:, 1] << np.uint32(16))).view(np.int32)]


def _unpack_bf16(registers: list[np.ndarray]) -> np.ndarray:
    """i32 registers ``(threads,)`` -> ``(threads, len(registers), 2)`` bf16 values."""
    bits = np.stack(registers, axis=1).view(np.uint32)
    pairs = np.stack([bits & np.uint32(0xFFFF), bits >> np.uint32(16)], axis=-1)
    return bf16_bits_to_f32(pairs.astype(np.uint16))


@handles("nvvm.mma.sync")
def _nvvm_mma(ex, op, mask):
    shape = op.properties["shape"]
    types = {
        getattr(op.properties.get(k), "data", None)
        for k in ("multiplicandAPtxType", "multiplicandBPtxType")
    }
    if (shape.m.data, shape.n.data, shape.k.data) != (16, 8, 16) or types != {"bf16"}:
        raise NvvmExecutionError(op, "only mma.m16n8k16 with bf16 multiplicands is modelled")
    if (op.properties["layoutA"].data.value, op.properties["layoutB"].data.value) != ("row", "col"):
        raise NvvmExecutionError(op, "only the row.col layout is modelled")
    values = [ex[v] for v in op.operands]
    a = _unpack_bf16(values[0:4])
    b = _unpack_bf16(values[4:6])
    c = np.stack(values[6:10], axis=1).astype(np.float32).reshape(ex.threads, 2, 2)
    return [_mma_m16n8k16(ex, op, mask, a, b, c).reshape(ex.threads, 4)]


def _fragment_positions() -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Where each lane's fragment registers sit in the m16n8k16 operands (PTX ISA,
    "Matrix Fragments for mma.m16n8k16"), as (row, column) index arrays shaped like
    the fragments: ``a (lanes, 4, 2)`` in A 16x16, ``b (lanes, 2, 2)`` in B 16x8,
    ``c (lanes, 2, 2)`` in C 16x8."""
    lane = np.arange(WARP)[:, None, None]
    g, q = lane // 4, lane % 4
    register = np.arange(4)[None, :, None]
    half_k, half_m = register // 2, register % 2
    j = np.arange(2)[None, None, :]
    a_rows, a_cols = g + 8 * half_m + 0 * j, 2 * q + 8 * half_k + j
    pair = np.arange(2)[None, :, None]
    b_rows, b_cols = 2 * q + 8 * pair + j, g + 0 * pair + 0 * j
    c_rows, c_cols = g + 8 * pair + 0 * j, 2 * q + j + 0 * pair
    return (a_rows, a_cols), (b_rows, b_cols), (c_rows, c_cols)


_A_AT, _B_AT, _C_AT = _fragment_positions()


def _mma_m16n8k16(ex, op, mask, a, b, c) -> np.ndarray:
    """Per warp D = A B + C from the fragments: ``a (threads, 4, 2)`` = a0..a7,
    ``b (threads, 2, 2)`` = b0..b3, ``c (threads, 2, 2)`` = c0..c3."""
    result = np.zeros_like(c)  # idle warps' stay zero
    for warp in _warps(ex, op, mask):
        A = np.zeros((16, 16), np.float32)
        B = np.zeros((16, 8), np.float32)
        C = np.zeros((16, 8), np.float32)
        A[_A_AT] = a[warp]
        B[_B_AT] = b[warp]
        C[_C_AT] = c[warp]
        result[warp] = gemm_accumulate(C, A, B)[_C_AT]
    return result


# ------------------------------------------------------------------ mbarriers


def _mbarrier(ex: BlockExecution, op: Operation) -> tuple[int, MBarrierState | None]:
    address = ex.uniform(op, op.operands[0])
    return address, ex.mbarriers.get(address)


MBARRIER_BYTES = 8


def _mbarrier_access(ex: BlockExecution, op: Operation, mask: np.ndarray, write: bool) -> None:
    """An mbarrier object is shared memory: init writes it, so the threads that later
    arrive on it or wait on it (which read it) must be ordered after the init by a
    barrier, as for any other shared write; a re-init must follow every use."""
    if ex.races is None:
        return
    threads = np.flatnonzero(mask)
    offset = ex.uniform(op, op.operands[0]) - SHARED_ADDRESS_BASE
    # The init is a generic-proxy write; arrivals and waits are mbarrier operations
    # the proxies do not order.
    proxy = "generic" if write else None
    ex.races.access(
        op, threads, np.full(threads.size, offset), MBARRIER_BYTES, write, proxy
    )
    if write:
        ex.races.mbarrier[offset : offset + MBARRIER_BYTES] = True


@handles("nvvm.mbarrier.init")
def _mbarrier_init(ex, op, mask):
    address, _ = _mbarrier(ex, op)
    count = ex.uniform(op, op.operands[1])
    _mbarrier_access(ex, op, mask, write=True)
    ex.mbarriers[address] = MBarrierState(count, count)
    if ex.races is not None:
        ex.races.init_mbarrier(address - SHARED_ADDRESS_BASE)


def _arrive(ex, op, mask, tx_bytes: int = 0) -> None:
    """An arrival (release semantics, PTX's default): the arriving threads' earlier
    accesses are ordered before the waits that observe the phase complete."""
    address, state = _mbarrier(ex, op)
    if state is None:
        raise NvvmExecutionError(op, "arrives on an uninitialised mbarrier")
    # An atomic update: it reads the object as initialised (ordered after the init),
    # and arrivals do not race with each other or with waits.
    _mbarrier_access(ex, op, mask, write=False)
    if ex.races is not None:
        ex.races.release(address - SHARED_ADDRESS_BASE, np.flatnonzero(mask))
    state.tx_bytes += tx_bytes
    state.pending -= int(mask.sum())
    _settle(ex, address, state)


@handles("nvvm.mbarrier.arrive")
def _mbarrier_arrive(ex, op, mask):
    _arrive(ex, op, mask)
    return [np.zeros(ex.threads, np.int64)]


@handles("nvvm.mbarrier.arrive.expect_tx")
def _mbarrier_expect_tx(ex, op, mask):
    _arrive(ex, op, mask, ex.uniform(op, op.operands[1]))


@handles("nvvm.mbarrier.complete_tx")
def _mbarrier_complete_tx(ex, op, mask):
    """Each active thread completes ``txcount`` bytes of the current phase (an
    atomic update, like an arrival, but not one: ``.relaxed``, it releases nothing)."""
    address, state = _mbarrier(ex, op)
    if state is None:
        raise NvvmExecutionError(op, "completes bytes on an uninitialised mbarrier")
    _mbarrier_access(ex, op, mask, write=False)
    state.tx_bytes -= ex.uniform(op, op.operands[1]) * int(mask.sum())
    _settle(ex, address, state)


def _phase_completed(ex, op, mask) -> bool:
    """Has the phase of the given parity completed?  A completed wait (acquire
    semantics) orders what the phase's arrivals and bulk copies released before the
    waiting threads' later accesses."""
    address, state = _mbarrier(ex, op)
    if state is None:
        raise NvvmExecutionError(op, "waits on an uninitialised mbarrier")
    _mbarrier_access(ex, op, mask, write=False)
    done = state.completed(ex.uniform(op, op.operands[1]))
    if done and ex.races is not None:
        ex.races.acquire(address - SHARED_ADDRESS_BASE, np.flatnonzero(mask))
    return done


@handles("nvvm.mbarrier.test.wait")
def _mbarrier_test_wait(ex, op, mask):
    return [np.full(ex.threads, _phase_completed(ex, op, mask))]


DEADLOCK = "waits for a phase that can never complete (deadlock)"


@handles("nvvm.mbarrier.try_wait.parity")
def _mbarrier_try_wait(ex, op, mask):
    """In lockstep nothing else runs while the threads wait: a phase that has not
    completed never will.  Under warp roles (``roles``) the wait blocks its role
    until another role completes the phase."""
    if _phase_completed(ex, op, mask):
        return
    if ex.roles is None:
        raise NvvmExecutionError(op, DEADLOCK)
    address, parity = ex.uniform(op, op.operands[0]), ex.uniform(op, op.operands[1])

    def ready() -> bool:
        state = ex.mbarriers.get(address)
        return state is not None and state.completed(parity)

    ex.roles.block(op, DEADLOCK, ready)
    _phase_completed(ex, op, mask)


@handles("nvvm.shfl.sync")
def _shuffle(ex, op, mask):
    """``shfl.sync`` within each warp (full member mask, 32-lane segments)."""
    _, value, offset, _ = (ex[v] for v in op.operands)
    kind = op.properties["kind"].data.value
    delta = ex.uniform(op, op.operands[2])
    lane = np.arange(WARP)
    source = {
        "bfly": lane ^ delta,
        "idx": np.full(WARP, delta % WARP),
        "up": np.where(lane >= delta, lane - delta, lane),
        "down": np.where(lane + delta < WARP, lane + delta, lane),
    }[kind]
    result = value.copy()
    for warp in _warps(ex, op, mask):
        result[warp] = value[warp][source]
    return [result]


@handles("nvvm.cp.async.bulk.shared.cluster.global")
def _bulk_copy(ex, op, mask):
    """The copy lands at once (lockstep) and completes its bytes on the mbarrier; it
    is ordered before the threads that wait for the phase it completes."""
    for thread in np.flatnonzero(mask):
        dst, src, bar, size = (int(ex[v][thread]) for v in op.operands[:4])
        offset = dst - SHARED_ADDRESS_BASE
        if not 0 <= offset <= ex.shared.size - size:
            raise NvvmExecutionError(op, "writes outside the block's shared memory")
        ex.shared[offset : offset + size] = ex.global_bytes(src, size)
        complete_bulk_bytes(ex, op, int(thread), offset, size, bar)


def complete_bulk_bytes(ex, op, thread: int, offset: int, size: int, bar: int) -> None:
    """Shared bytes ``[offset, offset + size)`` landed by ``thread``'s bulk or tensor
    copy: an async-proxy write, whose ``complete_tx`` (also through the async proxy)
    takes ``size`` bytes off the mbarrier at ``bar`` and orders the bytes before the
    threads that wait for the phase it completes."""
    state = ex.mbarriers.get(bar)
    if ex.races is not None:
        ex.races.access(
            op, np.array([thread]), np.array([offset]), size, write=True, proxy="async"
        )
        ex.races.async_proxy_access(op, thread, bar - SHARED_ADDRESS_BASE, MBARRIER_BYTES)
        if state is not None:  # the copy's completion releases it, as its thread
            ex.races.release(bar - SHARED_ADDRESS_BASE, np.array([thread]))
    if state is None:
        raise NvvmExecutionError(op, "completes on an uninitialised mbarrier")
    state.tx_bytes -= size
    _settle(ex, bar, state)
