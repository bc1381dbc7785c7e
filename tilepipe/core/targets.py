"""Targets are data: one record per target, read by every pass that needs a number.

A kernel names its target with the ``tile.target`` function attribute; passes look the
record up with :func:`target_of` and never branch on target names themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum

KiB = 1024


@dataclass(frozen=True)
class Latency:
    """Cycles an op occupies its unit in the cycle models (docs/schedule_sim.md):
    ``fixed + work / rate``.  The work is what the op moves or computes
    (:func:`tilepipe.semantics.op_work.op_work`): bytes for a copy or a vector op,
    FLOPs for a matmul.  ``rate`` None charges per op, whatever the tile's size (the
    abstract model of the chapter's cycle comparison)."""

    fixed: int
    rate: float | None = None  # bytes or FLOPs per cycle

    def cycles(self, work: int) -> int:
        if self.rate is None or work <= 0:
            return self.fixed
        return self.fixed + math.ceil(work / self.rate)


# The chapter's abstract cycle model: per op, whatever the size (a copy 30 cycles, a
# compute 20, a barrier 8, one issue per cycle).  The default of a CudaTarget record.
CHAPTER_LATENCIES: dict[str, Latency] = {
    "issue": Latency(1),  # an async copy's occupancy of the copy engine
    "global_copy": Latency(30),  # a global copy from its start until its data lands
    "compute": Latency(20),  # any compute tile op but a matmul
    "gemm": Latency(20),  # a matmul
    "barrier": Latency(8),
}


class LockPrimitive(Enum):
    """How a target reaches its lock pool (the spill space of ``ascend-flag-budget``)."""

    GET_BUF = "get_buf"  # get_buf/rls_buf buffer-lock intrinsics (910B class)
    ASC_LOCK = "asc_lock"  # asc_lock/asc_unlock (Ascend 950 class only, per the docs)


@dataclass(frozen=True)
class MmaShape:
    """A tensor-core instruction a CUDA target offers (``mma.sync.mMnNkK``): the
    element types of its A and B operands and of its accumulator."""

    m: int
    n: int
    k: int
    inputs: tuple[str, ...]
    accumulator: str


# mma.sync.m16n8k16 with f16 or bf16 multiplicands, f32 accumulator (sm_80 onwards).
MMA_M16N8K16 = MmaShape(16, 8, 16, ("f16", "bf16"), "f32")


@dataclass(frozen=True)
class WarpgroupMma:
    """``wgmma.mma_async`` (sm_90a): one warpgroup of ``warpgroup_threads`` threads
    computes an ``m x n x k`` product, n any multiple of ``n_step`` up to ``max_n``,
    its A and B read from shared memory through matrix descriptors, its f32
    accumulator in registers (PTX ISA, "Asynchronous Warpgroup Level Matrix
    Multiply-Accumulate")."""

    m: int
    k: int
    n_step: int
    max_n: int
    inputs: tuple[str, ...]
    accumulator: str
    warpgroup_threads: int = 128


# wgmma .m64nNk16 with f16 or bf16 multiplicands, f32 accumulator, N = 8, 16, ..., 256.
WGMMA_M64NNK16 = WarpgroupMma(64, 16, 8, 256, ("f16", "bf16"), "f32")


@dataclass(frozen=True)
class WarpSpecialization:
    """Producer/consumer warpgroups (sm_90a, the chapter's §8.3): ``producer_warpgroups``
    warpgroups issue the tensor copies, the kernel's own warpgroups consume; each role
    sets its per-thread register budget with ``setmaxnreg`` (24 to 256, a multiple
    of 8), the consumers' the most that fits ``register_file`` beside the producers',
    at most ``max_consumer_registers`` (TileLang 0.1.15: 24/240 for one or two
    consumer warpgroups, 24/160 for three)."""

    producer_warpgroups: int = 1
    producer_registers: int = 24
    max_consumer_registers: int = 240
    register_file: int = 65536  # 32-bit registers per SM
    max_threads: int = 1024  # per block

    def consumer_registers(self, consumer_threads: int, warpgroup_threads: int = 128) -> int:
        """The consumers' per-thread budget beside the producers' (multiple of 8)."""
        left = self.register_file - self.producer_registers * self.producer_warpgroups * warpgroup_threads
        return min(self.max_consumer_registers, left // consumer_threads // 8 * 8)


HOPPER_WARP_SPECIALIZATION = WarpSpecialization()


@dataclass(frozen=True)
class StreamingMultiprocessors:
    """The GPU a CUDA target's blocks run on, for the machine model
    (:mod:`tilepipe.schedule_sim.machine`, docs/schedule_sim.md): how many SMs, what
    each SM has that its resident blocks share, and the allocation rules of NVIDIA's
    occupancy calculator (``cuda_occupancy.h``, CUDA 13): registers are allocated per
    warp in units of ``register_allocation_unit``, within ``register_sub_partitions``
    equal slices of the register file; shared memory per block in units of
    ``shared_allocation_unit``, plus ``reserved_shared_per_block`` the driver keeps
    (sm_80 onwards).  ``clock_ghz`` turns cycles into time (the clock the part's peak
    tensor figure is quoted at)."""

    device: str
    count: int  # SMs
    shared_memory_per_sm: int  # bytes, at the largest shared-memory carveout
    clock_ghz: float
    reserved_shared_per_block: int = 1 * KiB
    shared_allocation_unit: int = 128  # bytes
    registers_per_sm: int = 65536  # 32-bit registers
    register_allocation_unit: int = 256  # registers, per warp
    register_sub_partitions: int = 4
    max_threads_per_sm: int = 2048
    max_blocks_per_sm: int = 32


# A100 SXM4: 108 SMs, 164 KiB of shared memory per SM (163 KiB for one block).
A100 = StreamingMultiprocessors("A100 SXM4", count=108, shared_memory_per_sm=164 * KiB, clock_ghz=1.41)
# H100 SXM5 (and H200, the same SMs): 132 SMs, 228 KiB per SM (227 KiB for one block).
H100 = StreamingMultiprocessors("H100 SXM5", count=132, shared_memory_per_sm=228 * KiB, clock_ghz=1.83)


@dataclass(frozen=True)
class CudaTarget:
    name: str
    sm: int
    shared_memory_bytes: int  # usable per block (opt-in maximum)
    default_alignment: int = 16
    async_copy_sizes: tuple[int, ...] = (4, 8, 16)  # cp.async chunk sizes in bytes
    async_copy_bypass_l1_size: int = 16  # cp.async.cg (L1 bypass) needs 16 B chunks
    warp_size: int = 32
    registers_per_thread: int = 255  # the most a thread may use (sm_50 onwards)
    named_barriers: int = 16  # bar.sync ids 0..15
    has_mbarrier: bool = True
    has_mbarrier_try_wait_parity: bool = False  # sm_90+
    has_bulk_tensor_copy: bool = False  # TMA, sm_90+
    # Tensor-map TMA (``cp.async.bulk.tensor``): one copy per tile box, the hardware
    # swizzles it into shared memory and zero-fills what lies outside the tensor.
    # The map is a kernel parameter the host encodes per launch.  Taken by default
    # where the target has it (``tma-copy{tensor-maps=false}`` falls back to the
    # row-wise bulk copies); sm_90a, the architecture-specific Hopper target.
    has_tensor_map_copy: bool = False
    # Warpgroup matrix multiply (``wgmma``, sm_90a): a tensor-core gemm whose shared
    # operands a descriptor can address runs on it (lowering/nvvm/wgmma.py).
    warpgroup_mma: WarpgroupMma | None = None
    # Producer/consumer warpgroups with setmaxnreg (sm_90a): warp-specialize.
    warp_specialization: WarpSpecialization | None = None
    # The memref memory spaces a kernel for this target may use ("global" = none).
    memory_spaces: tuple[str, ...] = ("global", "shared", "fragment", "local")
    # The tensor-core instructions a gemm may lower to; a gemm none fits runs on the
    # scalar path (lowering/nvvm/gemm.py).
    mma_shapes: tuple[MmaShape, ...] = (MMA_M16N8K16,)
    # Latencies of the schedule simulator's cycle model (docs/schedule_sim.md), keyed
    # as CHAPTER_LATENCIES.
    latencies: dict[str, Latency] = field(default_factory=lambda: dict(CHAPTER_LATENCIES))
    # The SMs the grid runs on (the machine model of ``tilepipe tune``); None: not
    # modelled, the blocks run one after another.
    machine: StreamingMultiprocessors | None = None

    kind = "cuda"

    # Same shape as AscendTarget's fields: the on-chip memories one arena packs each.
    @property
    def capacities(self) -> dict[str, int]:
        return {"shared": self.shared_memory_bytes}

    @property
    def alignments(self) -> dict[str, int]:
        return {"shared": self.default_alignment}


@dataclass(frozen=True)
class AscendTarget:
    name: str
    # On-chip buffer capacities in bytes.
    capacities: dict[str, int]
    alignments: dict[str, int]
    intra_core_event_ids: int = 8  # event ids per hard event (set_flag/wait_flag)
    cross_core_flags: int = 16
    # A cross-core flag is a counter: at most this many sets may be outstanding (not yet
    # waited) on one flag id, or the hardware counter overflows.
    cross_core_counter_limit: int = 16
    lock_pool_slots: int = 32  # the shared mutex pool spilled flags fall back to
    lock_primitive: LockPrimitive = LockPrimitive.GET_BUF
    # AI cores: a kernel with a matmul runs one block per cube core, a vector-only
    # kernel one per vector core (the machine model of ``tilepipe tune``).
    cube_cores: int = 24
    vector_cores: int = 48
    clock_ghz: float = 1.8  # turns the pipe simulator's cycles into time
    # Per-pipe latencies of the pipe simulator's cycle model (cycles per tile op:
    # fixed + bytes / rate, FLOPs on the cube's M pipe).
    pipe_latencies: dict[str, Latency] = field(
        default_factory=lambda: {
            "MTE2": Latency(30, 64),  # GM -> L1/UB
            "MTE1": Latency(10, 256),  # L1 -> L0A/L0B
            "MTE3": Latency(30, 64),  # UB -> GM
            "M": Latency(20, 8192),  # the cube: 16x16x16 MACs per cycle
            "V": Latency(20, 256),  # the vector unit: 256 bytes per cycle
            "FIX": Latency(10, 128),  # L0C -> GM/L1
            "S": Latency(1),
        }
    )
    flag_latency: int = 2
    lock_latency: int = 8
    # The memref memory spaces a kernel for this target may use; "global" (none) is
    # GM too, so that kernel arguments need no memory space.
    memory_spaces: tuple[str, ...] = ("global", "gm", "l1", "l0a", "l0b", "l0c", "ub")

    kind = "ascend"


# Per SM (one block per SM), from the parts' public peak figures: bandwidth between
# global and shared memory per SM and cycle (an L2-hit mix, above DRAM's share), dense
# f16 tensor-core FLOPs per SM and cycle, 32 lanes x 4 bytes for elementwise work.
SM_80 = CudaTarget(
    name="sm_80",
    sm=80,
    shared_memory_bytes=163 * KiB,
    machine=A100,
    latencies={
        "issue": Latency(1, 16),
        "global_copy": Latency(400, 16),
        "compute": Latency(20, 128),
        "gemm": Latency(20, 2048),  # A100: 312 TFLOP/s over 108 SMs at 1.41 GHz
        "barrier": Latency(20),
    },
)
SM_90 = CudaTarget(
    name="sm_90",
    sm=90,
    shared_memory_bytes=227 * KiB,  # 232,448 bytes
    machine=H100,
    has_mbarrier_try_wait_parity=True,
    has_bulk_tensor_copy=True,
    latencies={
        "issue": Latency(1, 32),
        "global_copy": Latency(450, 32),
        "compute": Latency(20, 128),
        "gemm": Latency(20, 4096),  # H100: 989 TFLOP/s over 132 SMs at 1.83 GHz
        "barrier": Latency(20),
    },
)
# Hopper's architecture-specific target (PTX ``.target sm_90a``, ``ptxas -arch
# sm_90a``): the sm_90 record plus the features that do not carry forward to later
# architectures and that TileLang's sm_90 kernels use.  A kernel for it runs on
# sm_90 devices only; ``sm_90`` stays the portable record.
SM_90A = replace(
    SM_90, name="sm_90a", has_tensor_map_copy=True, warpgroup_mma=WGMMA_M64NNK16,
    warp_specialization=HOPPER_WARP_SPECIALIZATION,
)
ASCEND_910B = AscendTarget(
    name="ascend910b",
    capacities={
        "ub": 192 * KiB,
        "l1": 512 * KiB,
        "l0a": 64 * KiB,
        "l0b": 64 * KiB,
        "l0c": 128 * KiB,
    },
    alignments={"ub": 32, "l1": 32, "l0a": 512, "l0b": 512, "l0c": 64},
)

# The Ascend 950 class: same model numbers here; its lock pool is reached through
# asc_lock/asc_unlock (the docs give those for the 950 only).
ASCEND_950 = replace(ASCEND_910B, name="ascend950", lock_primitive=LockPrimitive.ASC_LOCK)

TARGETS: dict[str, CudaTarget | AscendTarget] = {
    t.name: t for t in (SM_80, SM_90, SM_90A, ASCEND_910B, ASCEND_950)
}

DEFAULT_TARGET = "sm_80"
# Family names for the command line: `--target ascend` is the 910B-class record.
TARGET_ALIASES = {"ascend": ASCEND_910B.name}


def admitted_spaces(target: CudaTarget | AscendTarget) -> str:
    return ", ".join(f'"{space}"' for space in target.memory_spaces)


class UnknownTarget(ValueError):
    pass


def get_target(name: str) -> CudaTarget | AscendTarget:
    try:
        return TARGETS[TARGET_ALIASES.get(name, name)]
    except KeyError:
        raise UnknownTarget(
            f"unknown target '{name}' (known: {', '.join(sorted(TARGETS))})"
        ) from None


def target_of(func_op) -> CudaTarget | AscendTarget:
    """The target a kernel names in its ``tile.target`` attribute (default sm_80)."""
    from xdsl.dialects.builtin import StringAttr

    attr = func_op.attributes.get("tile.target")
    if attr is None:
        return TARGETS[DEFAULT_TARGET]
    if not isinstance(attr, StringAttr):
        raise UnknownTarget(f"'tile.target' must be a string, got {attr}")
    return get_target(attr.data)
