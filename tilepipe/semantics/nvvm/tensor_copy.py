"""Tensor-map copies in the NVVM interpreter (``cp.async.bulk.tensor``, sm_90a): the
map a host would encode, the box copy with its zero fill and its swizzle, and the
transaction bytes it completes.

Written from the PTX ISA and the CUDA driver API, independently of the lowering:

* a map (``cuTensorMapEncodeTiled``) describes a whole global array: its sizes and
  byte strides (each stride but the innermost a multiple of 16 bytes, the base
  16-byte aligned) and the box, at most 256 elements per dimension, whose innermost
  extent is a multiple of 16 bytes and, swizzled, at most the swizzle's span;
* the copy reads the box whose first element is at the coordinates (innermost
  first); elements outside the array read as zero, and the box's full size counts as
  transaction bytes on the mbarrier;
* the box lands row-major at the shared address, which must be 128-byte aligned;
  with a swizzle of S = 32, 64 or 128 bytes the 16-byte unit bits [4, 4 + log2(S/16))
  of each byte's shared address are XORed with its bits [7, 7 + log2(S/16)), so the
  address must be aligned to the pattern's span (8 S).

The interpreter plays the host: :func:`tensor_maps_of` builds the maps a kernel's
``tilepipe.tensor_maps`` asks for from the arrays it is launched with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation

from tilepipe.dialects.tensor_maps import (
    TENSOR_MAPS_ATTR,
    MalformedTensorMaps,
    tensor_map_parameters,
)
from tilepipe.semantics.nvvm.collectives import complete_bulk_bytes
from tilepipe.semantics.nvvm.execution import (
    SHARED_ADDRESS_BASE,
    BlockExecution,
    NvvmExecutionError,
    handles,
)

MAX_BOX = 256
ENCODE_ALIGNMENT = 16  # bytes: the array's base and its strides but the innermost
DESTINATION_ALIGNMENT = 128


class TensorMapError(ValueError):
    """What ``cuTensorMapEncodeTiled`` would reject."""


@dataclass(frozen=True)
class TensorMap:
    """A host-encoded map: kernel argument ``argument``, its box (outermost first)
    and swizzle in bytes (0: none)."""

    argument: int
    box: tuple[int, ...]
    swizzle: int

    def check(self, array: np.ndarray) -> None:
        """Reject what the driver's encoder rejects for ``array``."""
        if len(self.box) != array.ndim or not 1 <= array.ndim <= 5:
            raise TensorMapError(f"a box of rank {len(self.box)} for an array of rank {array.ndim}")
        if any(not 1 <= extent <= MAX_BOX for extent in self.box):
            raise TensorMapError(f"box {list(self.box)}: extents must be 1..{MAX_BOX}")
        inner = self.box[-1] * array.itemsize
        if inner % ENCODE_ALIGNMENT:
            raise TensorMapError(f"the box's rows of {inner} bytes are no multiple of 16")
        if self.swizzle and inner > self.swizzle:
            raise TensorMapError(f"rows of {inner} bytes exceed the {self.swizzle}-byte swizzle")
        if self.swizzle not in (0, 32, 64, 128):
            raise TensorMapError(f"no {self.swizzle}-byte swizzle mode")
        if any(stride % ENCODE_ALIGNMENT for stride in array.strides[:-1]):
            raise TensorMapError(f"strides {array.strides[:-1]} are not multiples of 16 bytes")

    @property
    def alignment(self) -> int:
        return 8 * self.swizzle if self.swizzle else DESTINATION_ALIGNMENT


def tensor_maps_of(kernel: Operation, arrays: list) -> list[TensorMap]:
    """The maps the kernel's ``tilepipe.tensor_maps`` describes, checked against the
    arrays of its own arguments as the driver's encoder would."""
    try:
        parameters = tensor_map_parameters(kernel.attributes.get(TENSOR_MAPS_ATTR))
    except MalformedTensorMaps as error:
        raise NvvmExecutionError(kernel, str(error)) from None
    maps = []
    for parameter in parameters:
        tensor_map = TensorMap(parameter.argument, parameter.box, parameter.swizzle)
        if not 0 <= tensor_map.argument < len(arrays):
            raise NvvmExecutionError(kernel, f"a tensor map of argument {tensor_map.argument}, "
                                     f"which the run does not pass")
        try:
            tensor_map.check(np.asarray(arrays[tensor_map.argument]))
        except TensorMapError as error:
            raise NvvmExecutionError(kernel, f"cannot encode the tensor map: {error}") from None
        maps.append(tensor_map)
    return maps


def swizzled(address: np.ndarray, swizzle: int) -> np.ndarray:
    """The shared address a byte of the box lands at under the swizzle mode."""
    if not swizzle:
        return address
    mask = swizzle // 16 - 1
    return address ^ (((address >> 7) & mask) << 4)


def box_values(array: np.ndarray, box: tuple[int, ...], origin: list[int]) -> np.ndarray:
    """The box at ``origin`` (outermost first), row-major, zero outside the array."""
    index = np.indices(box).reshape(len(box), -1) + np.asarray(origin)[:, None]
    shape = np.asarray(array.shape)[:, None]
    inside = ((index >= 0) & (index < shape)).all(axis=0)
    values = np.zeros(index.shape[1], array.dtype)
    values[inside] = array[tuple(index[:, inside])]
    return values


@handles("nvvm.cp.async.bulk.tensor.shared.cluster.global")
def _tensor_copy(ex: BlockExecution, op: Operation, mask: np.ndarray):
    """Each active thread's copy lands at once (lockstep) and completes its box's
    bytes on the mbarrier: ordered, like a bulk copy, before the threads that wait
    for the phase it completes, through the async proxy."""
    tensor_map = ex[op.operands[1]]
    if not isinstance(tensor_map, TensorMap):
        raise NvvmExecutionError(op, "takes a tensor map (a tilepipe.tensor_maps input)")
    if op.predicate is not None or op.multicastMask is not None:  # type: ignore[attr-defined]
        raise NvvmExecutionError(op, "a predicated or multicast tensor copy is not modelled")
    coordinates = op.coordinates  # type: ignore[attr-defined]
    bar_operand = op.mbar  # type: ignore[attr-defined]
    array = ex.global_arrays[tensor_map.argument]
    if len(coordinates) != array.ndim:
        raise NvvmExecutionError(op, f"has {len(coordinates)} coordinates for a rank-{array.ndim} map")
    size = array.itemsize
    box_bytes = size * int(np.prod(tensor_map.box))
    for thread in np.flatnonzero(mask):
        offset = int(ex[op.operands[0]][thread]) - SHARED_ADDRESS_BASE
        if offset % tensor_map.alignment:
            raise NvvmExecutionError(
                op, f"lands at shared byte {offset}, not {tensor_map.alignment}-byte aligned"
            )
        if not 0 <= offset <= ex.shared.size - box_bytes:
            raise NvvmExecutionError(op, "writes outside the block's shared memory")
        origin = [int(ex[c][thread]) for c in reversed(coordinates)]
        raw = box_values(array, tensor_map.box, origin).view(np.uint8)
        byte = swizzled(offset + np.arange(box_bytes), tensor_map.swizzle)
        ex.shared[byte] = raw
        # The swizzle permutes units within the box's span: the same bytes land.
        bar = int(ex[bar_operand][thread])
        complete_bulk_bytes(ex, op, int(thread), offset, box_bytes, bar)
