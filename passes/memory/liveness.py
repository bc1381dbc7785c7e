"""Buffer liveness: each on-chip buffer's live interval in program order (widened
over the loops that come back to it; mbarrier storage lives throughout) and its
exact footprint, versions times bytes per version.  See docs/arena.md, steps 1
("Liveness") and 2 ("Footprint")."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    CompileTimeFixedBitwidthType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import IsTerminator

from tilepipe.core.diagnostics import op_error
from tilepipe.dialects.memory_space import (
    MemorySpace,
    UnknownMemorySpace,
    memory_space,
)
from tilepipe.dialects.pipeline_sync import mbarrier_operands
from tilepipe.dialects.tile import constant_index
from tilepipe.passes.memory.arena_packing import Interval

VERSIONS_ATTR = "pipeline.versions"
ALIGNMENT_ATTR = "arena.alignment"
SWIZZLE_ATTR = "arena.swizzle"
DEPTH_ATTR = "pipeline.depth"

# A swizzled layout must start on a whole swizzle pattern: 8 rows of the swizzle width
# (TMA / MMA: 32 B -> 256 B, 64 B -> 512 B, 128 B -> 1024 B).
SWIZZLE_ALIGNMENT = {32: 256, 64: 512, 128: 1024}

SINGLE_EXECUTION_REGION_OPS: tuple[type[Operation], ...] = (scf.IfOp, scf.IndexSwitchOp)


def is_loop_like(op: Operation) -> bool:
    return bool(op.regions) and not isinstance(op, SINGLE_EXECUTION_REGION_OPS)


@dataclass(frozen=True)
class ProgramOrder:
    """Pre-order positions of the ops under one function, and each op's span."""

    position: Mapping[Operation, int]
    last_nested: Mapping[Operation, int]  # the last position inside an op's regions

    @staticmethod
    def of(func_op: FuncOp) -> ProgramOrder:
        position: dict[Operation, int] = {}
        last_nested: dict[Operation, int] = {}
        ops = list(func_op.body.walk())
        for index, op in enumerate(ops):
            position[op] = index
        # Post-order fills spans bottom-up: an op ends where its last nested op ends.
        for op in reversed(ops):
            end = position[op]
            for region in op.regions:
                for block in region.blocks:
                    if block.last_op is not None:
                        end = max(end, last_nested[block.last_op])
            last_nested[op] = end
        return ProgramOrder(position, last_nested)

    @property
    def kernel_span(self) -> tuple[int, int]:
        """The positions of the whole function body."""
        return 0, len(self.position) - 1

    def touch_span(self, toucher: Operation, scope: Operation | None) -> tuple[int, int]:
        """The positions a touch by ``toucher`` keeps a buffer allocated under
        ``scope`` live: the outermost loop between them, else the op itself."""
        start = end = self.position[toucher]
        ancestor = toucher.parent_op()
        while ancestor is not None and ancestor is not scope:
            if is_loop_like(ancestor) and ancestor in self.position:
                start, end = self.position[ancestor], self.last_nested[ancestor]
            ancestor = ancestor.parent_op()
        return start, end


def _memref_results(op: Operation) -> Iterator[SSAValue]:
    for result in op.results:
        if isinstance(result.type, MemRefType):
            yield result


def buffer_aliases(buffer: SSAValue) -> tuple[list[SSAValue], list[Operation]]:
    """``buffer`` and its aliases (followed through ops that return memrefs, and
    through terminators to their parent's memref results), and every op using one."""
    aliases: list[SSAValue] = []
    touches: list[Operation] = []
    seen_values: set[SSAValue] = set()
    pending = [buffer]
    while pending:
        value = pending.pop()
        if value in seen_values:
            continue
        seen_values.add(value)
        aliases.append(value)
        for use in value.uses:
            user = use.operation
            touches.append(user)
            pending.extend(_memref_results(user))
            if user.has_trait(IsTerminator) and (parent := user.parent_op()):
                pending.extend(_memref_results(parent))
    return aliases, touches


def buffer_touches(buffer: SSAValue) -> list[Operation]:
    """Every op that uses ``buffer`` or an alias of it."""
    return buffer_aliases(buffer)[1]


def holds_mbarriers(buffer: SSAValue) -> bool:
    """Does ``buffer`` (or an alias) hold mbarrier objects: the barrier array of an
    mbarrier op or of a bulk copy?"""
    aliases, touches = buffer_aliases(buffer)
    return any(
        (operands := mbarrier_operands(op)) is not None
        and any(operands[0] is alias for alias in aliases)
        for op in touches
    )


@dataclass(frozen=True)
class BufferLiveness:
    """One on-chip buffer: its live interval and footprint."""

    alloc: memref.AllocOp
    name: str
    space: MemorySpace
    start: int
    end: int
    versions: int
    bytes_per_version: int
    alignment: int
    versioned: bool  # the versions come from pipelining (attribute or slot index)

    @property
    def bytes(self) -> int:
        return self.versions * self.bytes_per_version

    def interval(self, versions: int | None = None) -> Interval:
        """The packing interval; ``versions`` re-sizes a multi-version buffer."""
        size = (self.versions if versions is None else versions) * self.bytes_per_version
        return Interval(self.name, self.start, self.end, size, self.alignment)


def _int_attribute(op: Operation, name: str) -> int | None:
    attr = op.attributes.get(name)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr):
        raise op_error(op, f"'{name}' must be an integer attribute, got {attr}")
    return attr.value.data


def buffer_alignment(alloc: memref.AllocOp, default: int) -> int:
    """The strictest alignment asked of a buffer: the space's default, the alloc's own
    ``alignment``, ``tile.alignment`` and the swizzle of ``tile.swizzle``."""
    alignment = default
    if alloc.alignment is not None:
        alignment = max(alignment, alloc.alignment.value.data)
    explicit = _int_attribute(alloc, ALIGNMENT_ATTR)
    if explicit is not None:
        if explicit <= 0 or explicit & (explicit - 1):
            raise op_error(
                alloc, f"'{ALIGNMENT_ATTR}' must be a power of two, got {explicit}"
            )
        alignment = max(alignment, explicit)
    swizzle = _int_attribute(alloc, SWIZZLE_ATTR)
    if swizzle is not None:
        if swizzle not in SWIZZLE_ALIGNMENT:
            raise op_error(
                alloc,
                f"'{SWIZZLE_ATTR}' must be a swizzle width of 32, 64 or 128 bytes, "
                f"got {swizzle}",
            )
        alignment = max(alignment, SWIZZLE_ALIGNMENT[swizzle])
    return alignment


def static_bytes(memref_type: MemRefType) -> int | None:
    """The bytes of a statically shaped memref of fixed-size elements, else None."""
    element = memref_type.element_type
    shape = memref_type.get_shape()
    if not isinstance(element, CompileTimeFixedBitwidthType) or any(d < 0 for d in shape):
        return None
    total = element.size
    for dim in shape:
        total *= dim
    return total


def buffer_footprint(alloc: memref.AllocOp, name: str) -> tuple[int, int, bool]:
    """``(versions, bytes per version, versioned)`` of a statically shaped alloc."""
    buffer_type = alloc.memref.type
    assert isinstance(buffer_type, MemRefType)
    shape = buffer_type.get_shape()
    if any(dim < 0 for dim in shape):
        raise op_error(
            alloc,
            f"on-chip buffer {name} of type {buffer_type} has a dynamic size; the "
            "arena needs static sizes (allocate the largest tile instead)",
        )
    if not isinstance(buffer_type.layout, NoneAttr):
        raise op_error(
            alloc,
            f"on-chip buffer {name} has a non-identity layout {buffer_type.layout}; "
            "only identity layouts can be views of the arena",
        )
    total = static_bytes(buffer_type)
    if total is None:
        raise op_error(
            alloc,
            f"on-chip buffer {name} has element type {buffer_type.element_type} of "
            "no fixed size",
        )
    versions = _int_attribute(alloc, VERSIONS_ATTR)
    if versions is None:
        if shape and shape[0] > 1 and _indexed_by_version_slot(alloc):
            return shape[0], total // shape[0], True
        return 1, total, False
    if not shape or shape[0] != versions or versions < 1:
        raise op_error(
            alloc,
            f"'{VERSIONS_ATTR}' is {versions} but the leading dimension of "
            f"{buffer_type} is not",
        )
    return versions, total // versions, True


def _indexed_by_version_slot(alloc: memref.AllocOp) -> bool:
    """Whether some tile access indexes the buffer's leading dimension with a slot
    ``x mod N``, N that dimension: the mark multi-buffering leaves on a version
    dimension when it records no ``pipeline.versions``."""
    versions = alloc.memref.type.get_shape()[0]
    for use in alloc.memref.uses:
        accesses = getattr(use.operation, "buffer_accesses", None)
        if accesses is None:
            continue
        for access in accesses():
            if access.buffer is not alloc.memref or not access.offsets:
                continue
            slot = access.offsets[0].owner
            if (
                isinstance(slot, arith.RemSIOp | arith.RemUIOp)
                and constant_index(slot.rhs) == versions
            ):
                return True
    return False


def _unique_name(alloc: memref.AllocOp, taken: set[str]) -> str:
    base = alloc.memref.name_hint or "buffer"
    name, suffix = base, 0
    while name in taken:
        suffix += 1
        name = f"{base}_{suffix}"
    taken.add(name)
    return name


def on_chip_allocs(
    func_op: FuncOp, spaces: Collection[str]
) -> Iterator[tuple[memref.AllocOp, MemorySpace]]:
    """The allocations in ``func_op`` of the memory spaces named in ``spaces``."""
    for op in func_op.body.walk():
        if isinstance(op, memref.AllocOp):
            try:
                space = memory_space(op.memref.type)
            except UnknownMemorySpace:
                continue  # the tile ops' verifiers report misplaced buffers
            if space.value in spaces:
                yield op, space


def liveness_intervals(
    func_op: FuncOp, alignments: Mapping[str, int]
) -> dict[MemorySpace, list[BufferLiveness]]:
    """The live buffers of every memory space named in ``alignments`` (space name ->
    default alignment), in program order of their allocation.  Allocations nobody
    touches are left out: they need no bytes."""
    order = ProgramOrder.of(func_op)
    taken: set[str] = set()
    buffers: dict[MemorySpace, list[BufferLiveness]] = {}
    for alloc, space in on_chip_allocs(func_op, alignments):
        name = _unique_name(alloc, taken)
        touches = buffer_touches(alloc.memref)
        if not touches:
            continue
        versions, bytes_per_version, versioned = buffer_footprint(alloc, name)
        scope = alloc.parent_op()
        spans = [order.touch_span(op, scope) for op in touches]
        if holds_mbarriers(alloc.memref):
            # mbarrier storage never shares bytes: before its init, nothing would
            # order the init after another buffer's last access of those bytes, and
            # after its last use the hardware wants mbarrier.inval before the bytes
            # hold anything else.  Live for the whole kernel, it gets its own bytes.
            spans.append(order.kernel_span)
        buffers.setdefault(space, []).append(
            BufferLiveness(
                alloc=alloc,
                name=name,
                space=space,
                start=min(start for start, _ in spans),
                end=max(end for _, end in spans),
                versions=versions,
                bytes_per_version=bytes_per_version,
                alignment=buffer_alignment(alloc, alignments[space.value]),
                versioned=versioned,
            )
        )
    return buffers


def pipeline_depth(func_op: FuncOp) -> int | None:
    """The depth the function's pipelined loop was scheduled with, where the IR records
    one (``pipeline.for`` ``depth``/``num_stages``, or a ``pipeline.depth`` attribute
    on the scheduled loop); None when nothing says."""
    from tilepipe.dialects.pipeline import ForOp as PipelineForOp

    depths: list[int] = []
    for op in func_op.body.walk():
        if isinstance(op, PipelineForOp):
            for annotation in ("depth", "num_stages"):
                if (value := op.int_annotation(annotation)) is not None:
                    depths.append(value)
                    break
        elif (value := _int_attribute(op, DEPTH_ATTR)) is not None:
            depths.append(value)
    return max(depths) if depths else None
