"""Warpgroup matrix multiply in the NVVM interpreter (``wgmma``, sm_90a).

Written from the PTX ISA ("Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
"Matrix Descriptor Format", "Shared Memory Matrix Layout", "Register Fragments"),
independently of the lowering (``lowering/nvvm/wgmma*.py``):

* a warpgroup is four consecutive warps from a warp index that is a multiple of 4;
  every ``wgmma`` op is executed by whole warpgroups, with the same descriptors in
  all of a warpgroup's threads;
* a descriptor holds the start address (bits 0-13), LBO (16-29) and SBO (32-45), in
  16-byte units, the base offset (49-51; only 0 is modelled) and the swizzle (62-63:
  1 128B, 2 64B, 3 32B; the unswizzled interleave mode is not modelled).  With a
  swizzle of S bytes, a K-major operand's row ``r`` (of M or N) lies at
  ``(r % 8) S + (r / 8) SBO``, its K elements contiguous; an MN-major one's K-row
  ``k`` at ``(k % 8) S + (k / 8) SBO``, S/2 elements of M (or N) contiguous and the
  next S/2 at LBO.  The bytes are then permuted by address bits as a tensor copy's
  swizzle (``tensor_copy.swizzled``);
* D (f32, m64nN): thread ``32 q + l`` of the warpgroup holds, in register ``i``,
  row ``16 q + l / 4 + 8 ((i % 4) / 2)``, column ``8 (i / 4) + 2 (l % 4) + i % 2``;
  a k16 step rounds as mma.sync's (``numerics.gemm_accumulate``).

What the model checks, besides the arithmetic:

* the operands are read through the async proxy when the wgmma issues (generic writes
  of them must be fenced, ``races``) and stay being read until a ``wait_group``
  retires the wgmma's group: a write of those bytes before then is a race;
* the accumulator a wgmma returns is not readable (``llvm.extractvalue``) until its
  group is retired, and every wgmma is retired before the kernel ends;
* an accumulator that is not the result of an earlier wgmma (a chain) must have been
  built before the warpgroup's last ``wgmma.fence``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import f32
from xdsl.dialects.llvm import LLVMStructType
from xdsl.ir import Operation, SSAValue

from tilepipe.semantics.memory import bf16_bits_to_f32
from tilepipe.semantics.numerics import gemm_accumulate
from tilepipe.semantics.nvvm.execution import WARP, BlockExecution, NvvmExecutionError, handles
from tilepipe.semantics.nvvm.tensor_copy import swizzled
from tilepipe.semantics.nvvm.wgmma_state import WARPGROUP, IssuedWgmma, state_of, warpgroups

M, K = 64, 16
SWIZZLE_BYTES = {1: 128, 2: 64, 3: 32}



def check_retired(ex: BlockExecution, op: Operation, value: SSAValue) -> None:
    """``op`` reads ``value``: not a wgmma accumulator still being computed."""
    state = getattr(ex, "wgmma", None)
    if state is not None and any(not r.retired for r in state.produced_by.get(value, ())):
        raise NvvmExecutionError(
            op, "reads a wgmma accumulator before a wgmma.wait_group retires its group"
        )


def forward(ex: BlockExecution, targets: Sequence[SSAValue], sources: Sequence[SSAValue]) -> None:
    """Control flow binds ``targets`` to the values of ``sources`` (an ``scf.for``'s
    iteration arguments and results): an accumulator still being computed stays so
    through them, and a wgmma may chain on it."""
    state = getattr(ex, "wgmma", None)
    if state is None:
        return
    for target, source in zip(targets, sources):
        for table in (state.produced_by, state.built_at):
            if source in table:
                table[target] = table[source]  # type: ignore[index]
            else:
                table.pop(target, None)


def check_all_retired(ex: BlockExecution) -> None:
    state = getattr(ex, "wgmma", None)
    if state is None:
        return
    for records in state.issued.values():
        if records:
            raise NvvmExecutionError(records[0].result.owner, "wgmma never waited for")


@handles("llvm.mlir.poison", "llvm.mlir.undef")
def _poison(ex, op, mask):
    """A struct of f32 held as ``(threads, fields)``; NaN shows any field never set."""
    struct = op.results[0].type
    if not isinstance(struct, LLVMStructType) or any(t != f32 for t in struct.types.data):
        raise NvvmExecutionError(op, "only a poison struct of f32 is modelled")
    fields = len(struct.types.data)
    state_of(ex).built_at[op.results[0]] = state_of(ex).tick()
    return [np.full((ex.threads, fields), np.nan, np.float32)]


@handles("llvm.insertvalue")
def _insertvalue(ex, op, mask):
    (position,) = op.properties["position"].get_values()
    check_retired(ex, op, op.operands[0])
    struct = np.array(ex[op.operands[0]], copy=True)
    struct[mask, position] = np.asarray(ex[op.operands[1]])[mask]
    state_of(ex).built_at[op.results[0]] = state_of(ex).tick()
    return [struct]


@handles("nvvm.wgmma.fence.aligned")
def _fence(ex, op, mask):
    state = state_of(ex)
    for group in warpgroups(ex, op, mask):
        state.fenced_at[group] = state.tick()


@handles("nvvm.wgmma.commit.group.sync.aligned")
def _commit(ex, op, mask):
    state = state_of(ex)
    for group in warpgroups(ex, op, mask):
        number = state.committed.get(group, 0)
        pending = [r for r in state.issued.get(group, []) if r.group < 0]
        for record in pending:
            record.group = number
        state.committed[group] = number + 1


@handles("nvvm.wgmma.wait.group.sync.aligned")
def _wait(ex, op, mask):
    state = state_of(ex)
    keep_newest = op.properties["group"].value.data
    for group in warpgroups(ex, op, mask):
        limit = state.committed.get(group, 0) - keep_newest
        remaining = []
        for record in state.issued.get(group, []):
            if 0 <= record.group < limit:
                record.retired = True
                if ex.races is not None:
                    ex.races.async_read(record.shared_bytes, False)
                    _restamp(ex, record)
            else:
                remaining.append(record)
        state.issued[group] = remaining
        if ex.races is not None:  # bytes other unretired wgmmas still read
            for record in remaining:
                ex.races.async_read(record.shared_bytes, True)


def _restamp(ex: BlockExecution, record: IssuedWgmma) -> None:
    """The wgmma read its operands until now: readers that released since its issue
    read them in their current epoch."""
    if record.readers is None:
        return
    moved = record.readers[ex.races.epoch[record.readers] != record.epochs]
    if moved.size:
        ex.races.retire_async_read(moved, record.shared_bytes)


@dataclass(frozen=True)
class Descriptor:
    start: int
    leading: int
    stride: int
    swizzle: int

    @staticmethod
    def decode(op: Operation, bits: int) -> Descriptor:
        bits &= (1 << 64) - 1
        if (bits >> 49) & 7:
            raise NvvmExecutionError(op, "a descriptor with a base offset is not modelled")
        mode = bits >> 62
        if mode not in SWIZZLE_BYTES:
            raise NvvmExecutionError(op, "a descriptor without a swizzle mode is not modelled")
        unit = lambda shift: ((bits >> shift) & 0x3FFF) << 4  # noqa: E731
        return Descriptor(unit(0), unit(16), unit(32), SWIZZLE_BYTES[mode])

    def addresses(self, mn: int, k_major: bool) -> np.ndarray:
        """The shared byte address of each 2-byte element (mn, k) of an operand of
        ``mn`` x 16, as the hardware reads it."""
        r, k = np.indices((mn, K))
        s = self.swizzle
        if k_major:
            linear = self.start + (r % 8) * s + (r // 8) * self.stride + 2 * k
        else:
            half = s // 2
            linear = (
                self.start + (r % half) * 2 + (r // half) * self.leading
                + (k % 8) * s + (k // 8) * self.stride
            )
        return swizzled(linear, s)


def _fragment_positions(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of register ``i`` of thread ``t`` of a warpgroup, ``(128, n/2)``."""
    t = np.arange(WARPGROUP)[:, None]
    i = np.arange(n // 2)[None, :]
    q, lane = t // WARP, t % WARP
    rows = 16 * q + lane // 4 + 8 * ((i % 4) // 2)
    cols = 8 * (i // 4) + 2 * (lane % 4) + i % 2
    return rows, cols


def _operand(ex, op, descriptor: Descriptor, mn: int, k_major: bool, bf16: bool) -> tuple[np.ndarray, np.ndarray]:
    """The values of a ``mn x 16`` operand and the shared bytes they are read from."""
    address = descriptor.addresses(mn, k_major)
    if address.min() < 0 or address.max() + 2 > ex.shared.size:
        raise NvvmExecutionError(op, "a descriptor addresses bytes outside the block's shared memory")
    raw = ex.shared[address] | (ex.shared[address + 1].astype(np.uint16) << 8)
    raw = raw.astype(np.uint16)
    values = bf16_bits_to_f32(raw) if bf16 else raw.view(np.float16).astype(np.float32)
    return values, address.ravel()


@handles("nvvm.wgmma.mma_async")
def _mma_async(ex, op, mask):
    props = op.properties
    m, n, k = (props["shape"].m.data, props["shape"].n.data, props["shape"].k.data)
    if (m, k) != (M, K):
        raise NvvmExecutionError(op, "only wgmma .m64nNk16 is modelled")
    if props["scaleA"].data.value != "one" or props["scaleB"].data.value != "one":
        raise NvvmExecutionError(op, "negated operands are not modelled")
    bf16 = props["typeA"].data.value == "bf16"
    a_k_major = props["layoutA"].data.value == "row"
    b_k_major = props["layoutB"].data.value == "col"
    accumulate = props["scaleD"].data.value == "one"

    def operands(group: int, threads: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        descriptor_a = Descriptor.decode(op, ex.uniform_in(op, op.operands[1], threads))
        descriptor_b = Descriptor.decode(op, ex.uniform_in(op, op.operands[2], threads))
        a, bytes_a = _operand(ex, op, descriptor_a, M, a_k_major, bf16)
        b, bytes_b = _operand(ex, op, descriptor_b, n, b_k_major, bf16)  # (n, 16)
        return a, b, np.concatenate([bytes_a, bytes_b])

    return [issue(ex, op, op.operands[0], mask, n, accumulate, operands)]


OperandsOf = Callable[[int, slice], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``(warpgroup, its threads) -> (A (64 x 16), B (N x 16), the shared bytes read)``."""


def issue(
    ex: BlockExecution,
    op: Operation,
    accumulator: SSAValue,
    mask: np.ndarray,
    n: int,
    accumulate: bool,
    operands: OperandsOf,
) -> np.ndarray:
    """Issue ``op``'s ``D = A B (+ D)`` in every warpgroup executing it, D in
    ``accumulator``: the fence rule, the async-proxy reads of the operands' shared
    bytes (until retired), the group record; the accumulator it returns."""
    state = state_of(ex)
    chained = accumulator in state.produced_by
    result = np.array(ex[accumulator], np.float32, copy=True)
    rows, cols = _fragment_positions(n)
    records = []
    for group in warpgroups(ex, op, mask):
        if not chained and state.built_at.get(accumulator, 0) >= state.fenced_at.get(group, 0):
            raise NvvmExecutionError(
                op, "its accumulator was written after the warpgroup's last wgmma.fence"
            )
        threads = slice(group * WARPGROUP, (group + 1) * WARPGROUP)
        a, b, read = operands(group, threads)
        issued = IssuedWgmma(-1, op.results[0], read)
        if ex.races is not None:
            readers = np.arange(group * WARPGROUP, (group + 1) * WARPGROUP, WARP)
            starts = np.tile(read, readers.size)
            ex.races.access(op, np.repeat(readers, read.size), starts, 2, False, proxy="async")
            ex.races.async_read(read, True)
            issued.readers, issued.epochs = readers, ex.races.epoch[readers].copy()
        c = np.zeros((M, n), np.float32)
        if accumulate:
            c[rows, cols] = result[threads]
        result[threads] = gemm_accumulate(c, a, b.T)[rows, cols]
        state.issued.setdefault(group, []).append(issued)
        records.append(issued)
    state.produced_by[op.results[0]] = records
    return result
