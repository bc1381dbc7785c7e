"""``tilepipe.tensor_maps``: the record a lowered kernel (``gpu.func``) keeps of its
tensor-map inputs (sm_90a), read by the hand-off, the NVVM interpreter and the hosts
that encode the maps (docs/nvvm.md, "Tensor maps").

One dictionary per map input, in input order (the map inputs follow the kernel's own):

    {argument = 0 : i64, box = array<i64: 128, 64>, swizzle = 128 : i64}

``argument`` indexes the kernel's own inputs (the array the map describes), ``box``
is outermost first with one extent per dimension of the array, ``swizzle`` is in
bytes (0: none).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr, i64
from xdsl.ir import Attribute

TENSOR_MAPS_ATTR = "tilepipe.tensor_maps"


@dataclass(frozen=True)
class TensorMapEncoding:
    """How a host asks the CUDA driver for a map (``cuTensorMapEncodeTiled``; the
    values of cuda.h's ``CUtensorMap*`` enums), the same for every host that encodes
    one: the host launchers (``lowering/nvvm/host_tensor_maps.py``) and
    ``tilepipe/drivers/cuda_driver.py``."""

    data_types = {"f16": 6, "f32": 7, "f64": 8, "bf16": 9, "i32": 3, "i64": 5, "i8": 0}
    swizzles = {0: 0, 32: 1, 64: 2, 128: 3}  # bytes -> CU_TENSOR_MAP_SWIZZLE_*
    interleave = 0  # CU_TENSOR_MAP_INTERLEAVE_NONE
    l2_promotion = 2  # CU_TENSOR_MAP_L2_PROMOTION_L2_128B
    oob_fill = 0  # CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: out-of-bounds elements read as zero
    map_bytes = 128  # sizeof(CUtensorMap)
    map_alignment = 64


TENSOR_MAP_ENCODING = TensorMapEncoding()
# On a gpu.func with dynamic shared memory: the alignment its base needs, when more
# than the 16 bytes upstream declares (wgmma operands); the upstream step sets it.
SHARED_ALIGNMENT_ATTR = "tilepipe.shared_alignment"
SWIZZLE_MODES = (0, 32, 64, 128)


class MalformedTensorMaps(ValueError):
    pass


@dataclass(frozen=True)
class TensorMapParameter:
    """One map input of a kernel: which argument, which box, which swizzle."""

    argument: int
    box: tuple[int, ...]
    swizzle: int

    def attribute(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "argument": IntegerAttr(self.argument, i64),
                "box": DenseArrayBase.from_list(i64, self.box),
                "swizzle": IntegerAttr(self.swizzle, i64),
            }
        )


def tensor_maps_attribute(parameters) -> ArrayAttr:
    return ArrayAttr([p.attribute() for p in parameters])


def tensor_map_parameters(attribute: Attribute | None) -> list[TensorMapParameter]:
    """The maps ``attribute`` (a kernel's ``tilepipe.tensor_maps``, or None) records;
    a malformed record raises :class:`MalformedTensorMaps` saying what is wrong."""
    if attribute is None:
        return []
    if not isinstance(attribute, ArrayAttr):
        raise MalformedTensorMaps(f"'{TENSOR_MAPS_ATTR}' must be an array, got {attribute}")
    maps = []
    for entry in attribute.data:
        fields = entry.data if isinstance(entry, DictionaryAttr) else {}
        argument, box, swizzle = (fields.get(k) for k in ("argument", "box", "swizzle"))
        if not (
            isinstance(argument, IntegerAttr)
            and isinstance(box, DenseArrayBase)
            and isinstance(swizzle, IntegerAttr)
            and swizzle.value.data in SWIZZLE_MODES
        ):
            raise MalformedTensorMaps(
                f"each entry of '{TENSOR_MAPS_ATTR}' is {{argument = i : i64, box = "
                f"array<i64: ...>, swizzle = 0|32|64|128 : i64}}, got {entry}"
            )
        maps.append(
            TensorMapParameter(
                argument.value.data, tuple(int(v) for v in box.get_values()), swizzle.value.data
            )
        )
    return maps
