"""The machine model: from one block's simulated cycles to the whole kernel's time on
a GPU (or an Ascend chip), whose processors run blocks concurrently, in waves
(docs/schedule_sim.md, "The machine model").

* **Occupancy** (CUDA): how many blocks one SM holds at once, the least of what its
  shared memory, its registers, its threads and its block slots allow, computed with
  the allocation rules of NVIDIA's occupancy calculator (the target record's
  :class:`~tilepipe.core.targets.StreamingMultiprocessors`).  An Ascend core runs one
  block at a time.
* **Waves**: the block scheduler fills every processor up to its occupancy; a grid
  larger than that runs in ``ceil(blocks / (processors x per_processor))`` waves, the
  last one possibly partial (some processors idle, or holding fewer blocks).
* **Co-resident blocks share their SM**: one block's simulated time ``T`` assumes it
  has the SM's copy bandwidth and tensor throughput to itself.  ``k`` blocks on one
  SM overlap each other's latencies (a copy in flight, a barrier, a dependent op) but
  not the units' throughput, so a wave takes ``max(T, k x D)``, ``D`` being the
  block's largest per-unit demand (the cycles of work / rate its ops put on one unit,
  :attr:`~tilepipe.schedule_sim.model.ScheduleReport.demand`).  One block per SM is
  the simulator's own answer; a latency-bound block gains from company, a
  throughput-bound one does not.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from tilepipe.core.targets import AscendTarget, CudaTarget, StreamingMultiprocessors

# What bounds the blocks per SM, as the table names it.
SHARED = "smem"
REGISTERS = "regs"
THREADS = "threads"
BLOCK_SLOTS = "blocks"
ONE_PER_CORE = "core"  # an Ascend core runs one block at a time
NOT_MODELLED = "-"  # a target without a machine record


@dataclass(frozen=True)
class BlockResources:
    """What one block of a kernel holds on its SM while it runs."""

    threads: int
    shared_bytes: int  # the dynamic shared memory it is launched with (the arena)
    registers: int | None = None  # per thread, from ptxas (None: not known, not a limit)


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    limiter: str  # the resource that allows the fewest (first in SHARED..BLOCK_SLOTS on a tie)
    limits: dict[str, int]  # blocks per SM each resource allows


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def cuda_occupancy(sms: StreamingMultiprocessors, block: BlockResources, warp_size: int = 32) -> Occupancy:
    """Blocks per SM as ``cudaOccMaxActiveBlocksPerMultiprocessor`` computes them, at
    the largest shared-memory carveout and with partitioned global caching off."""
    warps = -(-block.threads // warp_size)
    shared = _round_up(block.shared_bytes + sms.reserved_shared_per_block, sms.shared_allocation_unit)
    limits = {
        SHARED: sms.shared_memory_per_sm // shared,
        THREADS: sms.max_threads_per_sm // warp_size // warps,
        BLOCK_SLOTS: sms.max_blocks_per_sm,
    }
    if block.registers:
        per_warp = _round_up(block.registers * warp_size, sms.register_allocation_unit)
        # A warp's registers come from one sub-partition of the register file.
        warps_per_slice = sms.registers_per_sm // sms.register_sub_partitions // per_warp
        limits[REGISTERS] = warps_per_slice * sms.register_sub_partitions // warps
    order = [SHARED, REGISTERS, THREADS, BLOCK_SLOTS]
    limiter = min((name for name in order if name in limits), key=lambda name: limits[name])
    return Occupancy(limits[limiter], limiter, limits)


@dataclass(frozen=True)
class KernelPrediction:
    """The kernel's predicted time on the machine, and how its grid fills it."""

    blocks: int
    processors: int  # SMs, or Ascend cores
    processor: str  # "SM" or "core", for the table
    blocks_per_processor: int  # the occupancy (0: a block does not fit at all)
    limiter: str
    waves: int
    idle_in_last_wave: int  # processors without a block in the last wave
    last_wave_fill: float  # the last wave's blocks / the blocks a full wave holds
    block_cycles: int  # one block alone on a processor (the simulator)
    demand_cycles: int  # its largest per-unit throughput demand
    cycles: int  # the whole kernel

    def as_dict(self) -> dict:
        return asdict(self)


def wave_cycles(block_cycles: int, demand_cycles: int, resident: int) -> int:
    """One wave with ``resident`` blocks on a processor: they overlap their latencies,
    and share the units' throughput."""
    return max(block_cycles, resident * demand_cycles)


def predict_waves(
    blocks: int, processors: int, per_processor: int, block_cycles: int, demand_cycles: int,
    processor: str = "SM", limiter: str = NOT_MODELLED,
) -> KernelPrediction:
    """The grid's blocks in waves over ``processors`` holding ``per_processor`` each: the
    full waves, then a last one whose blocks the scheduler spreads over the
    processors (so its busiest processor holds ``ceil(left / processors)``)."""
    if per_processor < 1:
        return KernelPrediction(blocks, processors, processor, 0, limiter, 0, processors, 0.0,
                                block_cycles, demand_cycles, 0)
    capacity = processors * per_processor
    full, left = divmod(blocks, capacity)
    prediction = KernelPrediction(
        blocks, processors, processor, per_processor, limiter,
        waves=full + (left > 0),
        idle_in_last_wave=max(processors - left, 0) if left else 0,
        last_wave_fill=left / capacity if left else 1.0,
        block_cycles=block_cycles, demand_cycles=demand_cycles, cycles=0,
    )
    return replace(prediction, cycles=sum(n * c for n, c in wave_segments(prediction)))


def wave_segments(prediction: KernelPrediction) -> list[tuple[int, int]]:
    """``(waves, cycles of each)``: the full waves, then the last partial one."""
    per = prediction.blocks_per_processor
    if per < 1:
        return []
    full, left = divmod(prediction.blocks, prediction.processors * per)
    segments = [(full, wave_cycles(prediction.block_cycles, prediction.demand_cycles, per))] if full else []
    if left:
        resident = -(-left // prediction.processors)
        segments.append((1, wave_cycles(prediction.block_cycles, prediction.demand_cycles, resident)))
    return segments


def predict_kernel(
    target: CudaTarget | AscendTarget, blocks: int, block_cycles: int, demand_cycles: int,
    resources: BlockResources | None = None, uses_cube: bool = True,
) -> KernelPrediction:
    """The kernel's time on ``target``'s machine: CUDA blocks by occupancy over the SMs
    (``resources`` what one block holds), Ascend blocks one per cube core (a kernel
    with a matmul) or per vector core."""
    if isinstance(target, AscendTarget):
        cores = target.cube_cores if uses_cube else target.vector_cores
        return predict_waves(blocks, cores, 1, block_cycles, demand_cycles, "core", ONE_PER_CORE)
    if target.machine is None or resources is None:  # the blocks one after another
        return predict_waves(blocks, 1, 1, block_cycles, demand_cycles)
    occupancy = cuda_occupancy(target.machine, resources, target.warp_size)
    return predict_waves(blocks, target.machine.count, occupancy.blocks_per_sm, block_cycles,
                         demand_cycles, "SM", occupancy.limiter)


def clock_ghz(target: CudaTarget | AscendTarget) -> float | None:
    """The clock that turns the target's cycles into time (None: no machine record)."""
    if isinstance(target, AscendTarget):
        return target.clock_ghz
    return target.machine.clock_ghz if target.machine else None


def describe_machine(target: CudaTarget | AscendTarget) -> str:
    """One phrase for the model line of ``tilepipe tune``."""
    if isinstance(target, AscendTarget):
        return (f"{target.cube_cores} cube / {target.vector_cores} vector cores, "
                f"{target.clock_ghz:g} GHz")
    if target.machine is None:
        return "no machine record: blocks one after another"
    sms = target.machine
    return f"{sms.device}, {sms.count} SMs, {sms.clock_ghz:g} GHz"
