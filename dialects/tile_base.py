"""Regions and the common base of tile ops.

Every tile op names the buffers it touches together with the *region* it touches in
each: per-dimension offsets (SSA ``index`` values; none = the buffer's origin) and the
op's static tile shape.  A buffer of rank R touched by a tile of rank r <= R is touched
in the box ``offsets[d] .. offsets[d] + size[d]`` where the sizes are ``1`` for the
leading ``R - r`` dimensions and the tile's extents for the trailing ones -- so a
versioned buffer ``memref<2x128x64xf16>`` is accessed as ``%A_s[%slot, %c0, %c0]`` by
the same ``128x64`` tile.  ``TileOp.buffer_accesses()`` gives these regions to every
analysis (dependences, liveness, hazards, interpreter, race detector).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from enum import Enum
from typing import ClassVar

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, VarOperandDef, prop_def
from xdsl.utils.exceptions import VerifyException

from tilepipe.dialects.memory_space import MemorySpace, UnknownMemorySpace, memory_space

# --------------------------------------------------------------------------- regions


@dataclass(frozen=True)
class BufferAccess:
    """One buffer region an op reads and/or writes."""

    op: Operation
    buffer: SSAValue
    offsets: tuple[SSAValue, ...]  # one per buffer dimension; () = the origin
    sizes: tuple[int, ...]  # one per buffer dimension
    reads: bool
    writes: bool
    operand_name: str = ""
    # One atomic read-modify-write per element (``TileOp.ATOMIC_ROLES``): it does
    # not conflict with another atomic access of the same element.
    atomic: bool = False

    @property
    def space(self) -> MemorySpace:
        return memory_space(self.buffer.type)


def region_sizes(buffer_type: MemRefType, tile_shape: Sequence[int]) -> tuple[int, ...]:
    rank = len(buffer_type.get_shape())
    return (1,) * (rank - len(tile_shape)) + tuple(tile_shape)


VECTOR_BYTES = 16  # the widest per-thread vector access (ld/st.v4.b32, cp.async 16)


def element_bytes(element_type: Attribute) -> int:
    return max(1, element_type.bitwidth // 8)  # type: ignore[attr-defined]


def chunk_elements(shape: Sequence[int], element_type: Attribute) -> int:
    """Elements per cooperative chunk: the widest of 16/8/4/2/1 bytes dividing a row."""
    size = element_bytes(element_type)
    for chunk_bytes in (16, 8, 4, 2, 1):
        elements = chunk_bytes // size
        if elements >= 1 and shape[-1] % elements == 0:
            return elements
    return 1


def constant_index(value: SSAValue) -> int | None:
    """The value of an ``arith.constant`` index/integer, else None."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


# --------------------------------------------------------------------------- base


class ElementMapping(Enum):
    """How a tile op's elements map onto the threads of a block.

    This is a contract between the lowering (which threads execute which elements),
    the race detector and sync insertion (which must agree with it):

    COOPERATIVE: the tile's elements, in row-major order, are cut into chunks of
    ``TileOp.cooperative_chunk()`` elements (16 bytes when the row length allows, so
    the lowering can use vector accesses) and chunk ``c`` goes to thread ``c mod T``;
    every buffer the op touches is touched with the same mapping.  An op that touches
    a register fragment (``"fragment"``/``"local"``) cannot choose: it follows the
    fragment's layout (``TileOp.touches_registers()``).
    WARP_TILED: a matrix op; every warp reads its operands' whole tiles and writes its
    own sub-tile of the accumulator (a fragment layout).

    Either way, the roles in ``TileOp.ROLES_READ_BY_ALL_THREADS`` (a broadcast's
    source) are read by every thread.
    """

    COOPERATIVE = "cooperative"
    WARP_TILED = "warp_tiled"


class TileOp(IRDLOperation):
    """Common structure of tile ops: a static tile shape, region operands."""

    shape = prop_def(DenseArrayBase.constr(i64))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    ELEMENT_MAPPING: ClassVar[ElementMapping] = ElementMapping.COOPERATIVE

    # Subclasses list their region operands as (buffer field, offsets field, role).
    REGION_OPERANDS: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    # Memory spaces each role may live in.
    LEGAL_SPACES: ClassVar[dict[str, frozenset[MemorySpace]]] = {}
    # Roles every thread reads (whole) instead of following the element mapping: a
    # broadcast's source, whose element each thread owning a repetition reads.
    ROLES_READ_BY_ALL_THREADS: ClassVar[frozenset[str]] = frozenset()
    # Roles updated by an atomic read-modify-write of each element (tile.atomic_add's
    # destination): two atomic accesses of one element never race.
    ATOMIC_ROLES: ClassVar[frozenset[str]] = frozenset()

    @property
    def tile_shape(self) -> tuple[int, ...]:
        return tuple(self.shape.get_values())

    def operand_tile_shape(self, role: str) -> tuple[int, ...]:
        return self.tile_shape

    def reads_and_writes(self, role: str) -> tuple[bool, bool]:
        return (role != "dst", role == "dst")

    def tile_regions(self) -> list[tuple[str, SSAValue, tuple[SSAValue, ...]]]:
        # The analyses, the interpreters and the race detectors ask this of every op
        # many times: the segment sizes are decoded once here, not once per field (as
        # xDSL's accessors do), a tenth of the time of a test run's compiles.
        segments = _region_segments(type(self))
        sizes = self.properties.get("operandSegmentSizes")
        if segments is None or not isinstance(sizes, DenseArrayBase):
            return [
                (role, getattr(self, buf), tuple(getattr(self, offs)))
                for buf, offs, role in self.REGION_OPERANDS
            ]
        counts = sizes.get_values()
        starts = tuple(accumulate(counts, initial=0))
        operands = self.operands
        return [
            (role, operands[starts[buf]], tuple(operands[starts[offs] : starts[offs + 1]]))
            for buf, offs, role in segments
        ]

    def buffer_accesses(self) -> list[BufferAccess]:
        accesses: list[BufferAccess] = []
        for role, buffer, offsets in self.tile_regions():
            assert isinstance(buffer.type, MemRefType)
            reads, writes = self.reads_and_writes(role)
            accesses.append(
                BufferAccess(
                    self,
                    buffer,
                    offsets,
                    region_sizes(buffer.type, self.operand_tile_shape(role)),
                    reads,
                    writes,
                    role,
                    role in self.ATOMIC_ROLES,
                )
            )
        return accesses

    # -- verification shared by all tile ops

    def verify_(self) -> None:
        if not self.tile_shape:
            raise VerifyException("tile shape must have at least one dimension")
        if any(d <= 0 for d in self.tile_shape):
            raise VerifyException(f"tile shape {self._shape_str()} must be positive")
        for role, buffer, offsets in self.tile_regions():
            self._verify_region(role, buffer, offsets)
        self.verify_tile_op()

    def verify_tile_op(self) -> None:
        """Op-specific checks (dtypes, shapes)."""

    def _shape_str(self, shape: Sequence[int] | None = None) -> str:
        return "x".join(str(d) for d in (self.tile_shape if shape is None else shape))

    def _verify_region(
        self, role: str, buffer: SSAValue, offsets: Sequence[SSAValue]
    ) -> None:
        buffer_type = buffer.type
        if not isinstance(buffer_type, MemRefType):
            raise VerifyException(f"{role} must be a memref, got {buffer_type}")
        try:
            space = memory_space(buffer_type)
        except UnknownMemorySpace as e:
            raise VerifyException(f"{role}: {e}") from e
        legal = self.LEGAL_SPACES.get(role)
        if legal is not None and space not in legal:
            names = ", ".join(sorted(s.value for s in legal))
            raise VerifyException(
                f"{role} may not live in {space.value} memory (legal: {names})"
            )
        dims = buffer_type.get_shape()
        tile = self.operand_tile_shape(role)
        if len(dims) < len(tile):
            raise VerifyException(
                f"{role} of rank {len(dims)} cannot hold a "
                f"{self._shape_str(tile)} tile"
            )
        if offsets and len(offsets) != len(dims):
            raise VerifyException(
                f"{role} has {len(offsets)} offsets for a rank-{len(dims)} buffer"
            )
        for off in offsets:
            if not isinstance(off.type, IndexType):
                raise VerifyException(f"{role} offsets must be of index type")
        sizes = region_sizes(buffer_type, tile)
        for d, (dim, size) in enumerate(zip(dims, sizes)):
            if dim < 0:
                continue
            start = constant_index(offsets[d]) if offsets else 0
            if start is None:
                start = 0
            if start >= 0 and start + size <= dim:
                continue
            # A tile may reach past a global array (boundary tiles: reads 0, writes
            # dropped); one wholly outside it is a mistake.  On-chip buffers are strict.
            if not space.is_off_chip:
                raise VerifyException(
                    f"{role} region [{start}, {start + size}) is out of bounds "
                    f"in dimension {d} of size {dim}"
                )
            if start >= dim or start + size <= 0:
                raise VerifyException(
                    f"{role} region [{start}, {start + size}) lies entirely outside "
                    f"dimension {d} of size {dim}"
                )

    # -- thread mapping (see ElementMapping)

    def chunk_element_type(self) -> Attribute:
        """The element type that sets the cooperative chunk: the last region's."""
        return self.element_type(self.REGION_OPERANDS[-1][2])

    def cooperative_chunk(self) -> int:
        return chunk_elements(self.tile_shape, self.chunk_element_type())

    def touches_registers(self) -> bool:
        return any(
            memory_space(buffer.type).is_thread_private
            for _, buffer, _ in self.tile_regions()
        )

    def element_type(self, role: str) -> Attribute:
        for r, buffer, _ in self.tile_regions():
            if r == role:
                assert isinstance(buffer.type, MemRefType)
                return buffer.type.element_type
        raise KeyError(role)


_SEGMENTS: dict[type, tuple[tuple[int, int, str], ...] | None] = {}


def _region_segments(op_class: type[TileOp]) -> tuple[tuple[int, int, str], ...] | None:
    """``REGION_OPERANDS`` of ``op_class`` as (buffer's operand index, offsets' operand
    index, role); None where a buffer is not a single operand (then the accessors)."""
    if op_class not in _SEGMENTS:
        definition = op_class.get_irdl_definition()
        fields = {
            name: (index, operand)
            for index, (name, operand) in enumerate(definition.operands if definition else ())
        }
        segments: list[tuple[int, int, str]] | None = [] if definition else None
        for buffer, offsets, role in op_class.REGION_OPERANDS if definition else ():
            buffer_index, buffer_def = fields[buffer]
            if isinstance(buffer_def, VarOperandDef):
                segments = None
                break
            segments.append((buffer_index, fields[offsets][0], role))
        _SEGMENTS[op_class] = None if segments is None else tuple(segments)
    return _SEGMENTS[op_class]


ANY_SPACE = frozenset(MemorySpace)
ON_CHIP = ANY_SPACE - {MemorySpace.GLOBAL, MemorySpace.GM}
MATMUL_INPUT_SPACES = frozenset(
    {
        MemorySpace.SHARED,
        MemorySpace.FRAGMENT,
        MemorySpace.L0A,
        MemorySpace.L0B,
    }
)
ACCUMULATOR_SPACES = frozenset({MemorySpace.FRAGMENT, MemorySpace.L0C})
