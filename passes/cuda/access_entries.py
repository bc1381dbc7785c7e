"""Access entries: which shared- and global-memory bytes an op touches, and who.

An *access entry* is one region of one shared or global buffer touched by one op, with
who touches it.  Global memory counts as well as shared: the threads of one block run
a tile op's elements in parallel, so a fragment stored to global memory and loaded
back by an op with another thread mapping is a race inside the block although the
tile program is sequential, and a block barrier orders global accesses of the block
like shared ones.  (Blocks never synchronize with each other; distinct kernel
arguments are assumed not to alias.)  Who touches an entry: the threads of a
cooperative tile op (element ``e`` of the tile, row-major, by thread ``e mod T``),
every thread (the operands of a warp-tiled ``tile.gemm``, a ``tile.broadcast``'s
source: ``TileOp.ROLES_READ_BY_ALL_THREADS``), the warpgroups of a gemm on ``wgmma``
(its shared operands, read through the async proxy), thread 0 (scalar
``memref.load``/``store``), or the async copy engine on behalf of the issuing threads
(``pipeline.async_copy``, which reads its global source as late as it writes its
shared destination: only a ``wait_group`` orders either).

Which pairs of entries are hazards is :mod:`hazards`' job (docs/sync.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from tilepipe.dialects.memory_space import MemorySpace, memory_space
from tilepipe.dialects.pipeline_sync import AsyncTileCopy, BulkCopyOp
from tilepipe.dialects.tile import ElementMapping, GemmOp, TileOp

from tilepipe.passes.analysis.program_points import Level, chain
from tilepipe.passes.cuda.warpgroup_mma import reads_through_async_proxy


class Agent(Enum):
    COOPERATIVE = "cooperative"  # element e of the tile -> thread e mod T
    ALL_THREADS = "all threads"  # every thread touches the whole region
    THREAD_ZERO = "thread 0"
    ASYNC_ENGINE = "async copy engine"  # written by the engine for cooperative issuers
    BULK_ENGINE = "bulk copy engine"  # a TMA copy issued by thread 0, completing on an mbarrier
    FRAGMENT = "fragment layout"  # an op touching registers follows their layout
    # A gemm's shared operands read by wgmma for its warpgroups, through the async
    # proxy; retired (wait_group 0) before the gemm ends (warpgroup_mma.py).
    WARPGROUP_MMA = "warpgroup mma"


@dataclass(frozen=True, eq=False)
class AccessEntry:
    op: Operation
    buffer: SSAValue
    offsets: tuple[SSAValue, ...]  # () = origin
    sizes: tuple[int, ...]
    tile_shape: tuple[int, ...]
    reads: bool
    writes: bool
    agent: Agent
    levels: tuple[Level, ...] = field(default=(), compare=False)
    chunk: int = 1  # cooperative chunk (elements per thread-contiguous piece)
    # An atomic read-modify-write of each element (tile.atomic_add's destination):
    # two atomic entries never conflict (TileLang's "two atomics" exemption).
    atomic: bool = False

    @property
    def is_async(self) -> bool:
        """Performed by the async copy engine (landed by a ``wait_group`` only)."""
        return self.agent is Agent.ASYNC_ENGINE

    @property
    def is_bulk_write(self) -> bool:
        return self.agent is Agent.BULK_ENGINE

    @property
    def is_async_proxy(self) -> bool:
        """Through the async proxy: a bulk copy's write, a wgmma's operand read."""
        return self.agent in (Agent.BULK_ENGINE, Agent.WARPGROUP_MMA)

    def participating_threads(self, threads: int) -> int:
        """How many leading threads take part (the rest idle)."""
        if self.agent in (Agent.COOPERATIVE, Agent.ASYNC_ENGINE):
            elements = 1
            for extent in self.tile_shape:
                elements *= extent
            return min(threads, -(-elements // self.chunk))
        if self.agent in (Agent.THREAD_ZERO, Agent.BULK_ENGINE):
            return 1
        return threads


BLOCK_VISIBLE_SPACES = (MemorySpace.SHARED, MemorySpace.GLOBAL)


def _is_block_visible(value: SSAValue) -> bool:
    """Memory more than one thread of a block can touch (not fragments or locals)."""
    return isinstance(value.type, MemRefType) and memory_space(value.type) in BLOCK_VISIBLE_SPACES


def access_entries(op: Operation) -> list[AccessEntry]:
    """The shared- and global-memory accesses of one op (none for private memory)."""
    entries: list[AccessEntry] = []
    if isinstance(op, TileOp):
        for access in op.buffer_accesses():
            if not _is_block_visible(access.buffer):
                continue
            tile = op.operand_tile_shape(access.operand_name)
            if isinstance(op, BulkCopyOp) and access.writes:
                agent = Agent.BULK_ENGINE
            elif isinstance(op, AsyncTileCopy) and not isinstance(op, BulkCopyOp):
                agent = Agent.ASYNC_ENGINE
            elif isinstance(op, GemmOp) and access.reads and reads_through_async_proxy(op):
                agent = Agent.WARPGROUP_MMA
            elif (
                op.ELEMENT_MAPPING is ElementMapping.WARP_TILED
                or access.operand_name in op.ROLES_READ_BY_ALL_THREADS
            ):
                agent = Agent.ALL_THREADS
            elif op.touches_registers():
                agent = Agent.FRAGMENT
            else:
                agent = Agent.COOPERATIVE
            entries.append(
                AccessEntry(op, access.buffer, access.offsets, access.sizes, tile,
                            access.reads, access.writes, agent, tuple(chain(op)),
                            op.cooperative_chunk(), access.atomic)
            )
    elif isinstance(op, memref.LoadOp | memref.StoreOp) and _is_block_visible(op.memref):
        indices = tuple(op.indices)
        entries.append(
            AccessEntry(op, op.memref, indices, (1,) * len(indices), (1,),
                        isinstance(op, memref.LoadOp), isinstance(op, memref.StoreOp),
                        Agent.THREAD_ZERO, tuple(chain(op)))
        )
    return entries
