"""The machine model of ``tilepipe tune`` (tilepipe/schedule_sim/machine.py): occupancy
by NVIDIA's allocation rules, waves over the SMs, co-resident blocks sharing an SM's
throughput, and the ranking that follows.  Every expected number is worked out by
hand in the test from the parts' figures (A100: 108 SMs, 164 KiB of shared memory per
SM; H100: 132 SMs, 228 KiB), not taken from the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilepipe.core.targets import ASCEND_910B, SM_80, SM_90, KiB
from tilepipe.drivers.tune import apply_machine_model, best, model_for, tune
from tilepipe.drivers.tune_evaluate import Config, Outcome
from tilepipe.schedule_sim.machine import (
    BlockResources,
    cuda_occupancy,
    predict_kernel,
    wave_cycles,
)

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm_tune.mlir"
A100_SHARED = 164 * KiB  # per SM
H100_SHARED = 228 * KiB


def test_the_records_carry_the_parts_figures():
    assert (SM_80.machine.count, SM_80.machine.shared_memory_per_sm) == (108, 167936)
    assert (SM_90.machine.count, SM_90.machine.shared_memory_per_sm) == (132, 233472)
    assert SM_80.shared_memory_bytes == 166912 and SM_90.shared_memory_bytes == 232448
    for record in (SM_80.machine, SM_90.machine):
        assert record.registers_per_sm == 65536 and record.register_allocation_unit == 256
        assert record.reserved_shared_per_block == 1024 and record.max_threads_per_sm == 2048


def test_shared_memory_bounds_the_example_gemm_on_sm_80():
    # 98304 B arena + 1 KiB reserved = 99328 B (a multiple of 128): 167936 // 99328 = 1.
    occupancy = cuda_occupancy(SM_80.machine, BlockResources(128, 98304, 128))
    assert (occupancy.blocks_per_sm, occupancy.limiter) == (1, "smem")
    # 64 KiB + 1 KiB = 66560 B: two fit in 167936 (three would need 199680).
    assert cuda_occupancy(SM_80.machine, BlockResources(128, 64 * KiB, 128)).blocks_per_sm == 2
    # 1000 B + 1024 B = 2024 B, rounded up to 2048 (128 B units): 82 by shared memory,
    # 2048 / 128 = 16 by threads, 32 block slots: threads bound it.
    small = cuda_occupancy(SM_80.machine, BlockResources(128, 1000, None))
    assert small.limits["smem"] == A100_SHARED // 2048 == 82
    assert (small.blocks_per_sm, small.limiter) == (16, "threads")


def test_registers_are_allocated_per_warp_in_256_register_units():
    # 234 registers x 32 lanes = 7488, rounded up to 7680 per warp; a quarter of the
    # register file (16384) holds 2 such warps, the SM 8; a 128-thread block is 4
    # warps: 2 blocks.
    occupancy = cuda_occupancy(SM_80.machine, BlockResources(128, 16 * KiB, 234))
    assert occupancy.limits["regs"] == 2 and (occupancy.blocks_per_sm, occupancy.limiter) == (2, "regs")
    # 128 registers: 4096 per warp, 4 per quarter, 16 per SM: 4 blocks of 4 warps.
    assert cuda_occupancy(SM_80.machine, BlockResources(128, 16 * KiB, 128)).limits["regs"] == 4
    # 255 registers, 256 threads: 8160 -> 8192 per warp, 2 per quarter, 8 per SM = one
    # block of 8 warps.
    assert cuda_occupancy(SM_90.machine, BlockResources(256, 0, 255)).limits["regs"] == 1
    # 1024 threads of 128 registers: 32 warps, but the SM holds 16 of them: no block.
    assert cuda_occupancy(SM_80.machine, BlockResources(1024, 0, 128)).blocks_per_sm == 0


def test_waves_of_the_example_gemm_on_sm_80_and_sm_90():
    # 64 blocks, one per SM on 108 SMs: one wave, 44 SMs idle.
    a100 = predict_kernel(SM_80, 64, 40000, 30000, BlockResources(128, 98304, 128))
    assert (a100.blocks_per_processor, a100.waves, a100.idle_in_last_wave) == (1, 1, 44)
    assert a100.cycles == 40000 and a100.last_wave_fill == pytest.approx(64 / 108)
    # 228 KiB per SM on H100 holds two 97 KiB blocks (2 x 99328 = 198656 <= 233472):
    # 64 blocks on 132 SMs leave 68 idle.
    h100 = predict_kernel(SM_90, 64, 40000, 30000, BlockResources(128, 98304, 128))
    assert (h100.blocks_per_processor, h100.waves, h100.idle_in_last_wave) == (2, 1, 68)
    # 128 blocks at one per SM on 108 SMs: a full wave and one of 20 blocks.
    two = predict_kernel(SM_80, 128, 30000, 10000, BlockResources(128, 98304, 128))
    assert (two.waves, two.idle_in_last_wave, two.cycles) == (2, 88, 2 * 30000)
    # ... at two per SM: one wave, 20 SMs holding two blocks (they share the SM's
    # throughput: 2 x 20000 > 30000).
    shared = predict_kernel(SM_80, 128, 30000, 20000, BlockResources(128, 64 * KiB, 128))
    assert (shared.blocks_per_processor, shared.waves, shared.idle_in_last_wave) == (2, 1, 0)
    assert shared.cycles == 2 * 20000


def test_co_resident_blocks_hide_latency_but_share_throughput():
    assert wave_cycles(30000, 5000, 1) == 30000  # alone: the simulator's answer
    assert wave_cycles(30000, 5000, 4) == 30000  # latency-bound: company is free
    assert wave_cycles(30000, 12000, 4) == 48000  # throughput-bound: they queue


def test_ascend_runs_one_block_per_core():
    # 50 blocks of a matmul on 24 cube cores: 3 waves, the last with 2 blocks.
    cube = predict_kernel(ASCEND_910B, 50, 1000, 900)
    assert (cube.processors, cube.blocks_per_processor, cube.waves) == (24, 1, 3)
    assert (cube.idle_in_last_wave, cube.cycles) == (22, 3 * 1000)
    # A vector kernel on the 48 vector cores: 2 waves.
    vector = predict_kernel(ASCEND_910B, 50, 1000, 900, uses_cube=False)
    assert (vector.processors, vector.waves, vector.idle_in_last_wave) == (48, 2, 46)


def _outcome(blocks: int, cycles: int, demand: int, arena: int) -> Outcome:
    outcome = Outcome(Config(f"k{blocks}.mlir", 2), arena_bytes=arena, registers=128,
                      threads=128, step=100.0, cycles=cycles, demand=demand, blocks=blocks)
    apply_machine_model(outcome, SM_80, model_for(SM_80, None))
    return outcome


def test_a_grid_that_fills_the_gpu_ranks_above_one_that_does_not():
    # The same work as 64 blocks of 40000 cycles or 128 blocks of 20000 (the same
    # "grid cycles"), 64 KiB arenas (two blocks per SM): 64 blocks leave 44 SMs idle,
    # 128 fill every SM and run 20 of them two deep, which their demand allows.
    few = _outcome(64, 40000, 8000, 64 * KiB)
    many = _outcome(128, 20000, 4000, 64 * KiB)
    assert few.grid_cycles == many.grid_cycles
    assert (few.prediction.idle_in_last_wave, many.prediction.idle_in_last_wave) == (44, 0)
    assert many.kernel_cycles == 20000 < few.kernel_cycles == 40000
    assert best([few, many]) is many
    # Seconds at the public clock: 1.41 GHz.
    assert many.seconds == pytest.approx(20000 / 1.41e9)


def test_a_block_that_fits_no_sm_is_rejected():
    outcome = Outcome(Config("k.mlir", 2), arena_bytes=0, registers=128, threads=1024, cycles=10, blocks=1)
    apply_machine_model(outcome, SM_80, model_for(SM_80, None))
    assert not outcome.fits and outcome.rejected.startswith("occupancy: no block fits on an SM")


@pytest.mark.parametrize("target, expected", [
    # block_M -> (arena B, blocks, blocks per SM, waves, idle SMs) at block_K = 64 and
    # num_stages 3; without ptxas registers do not bound them.
    # sm_80: 98304 + 1024 = 99328 B, 1 in 167936; 73728 + 1024 = 74752 B, 2 in 167936.
    ("sm_80", {128: (98304, 64, 1, 1, 44), 64: (73728, 128, 2, 1, 0)}),
    # sm_90 (its mbarriers add 32 B): 98336 + 1024 -> 99456 B (128 B units), 2 in
    # 233472; 73760 + 1024 -> 74880 B, 3 in 233472; 128 blocks on 132 SMs: 4 idle.
    ("sm_90", {128: (98336, 64, 2, 1, 68), 64: (73760, 128, 3, 1, 4)}),
])
def test_the_example_gemm_through_tune(target, expected):
    outcomes = tune([(str(EXAMPLE), EXAMPLE.read_text())], target, [3], run_ptxas=False, jobs=2)
    seen = set()
    for outcome in outcomes:
        params = dict(outcome.config.params)
        if params["block_K"] != 64:
            continue
        p = outcome.prediction
        arena, blocks, per_sm, waves, idle = expected[params["block_M"]]
        assert outcome.arena_bytes == arena and outcome.threads == 128
        assert (p.blocks, p.blocks_per_processor, p.waves, p.idle_in_last_wave) == (blocks, per_sm, waves, idle)
        assert p.limiter == "smem"
        seen.add(params["block_M"])
    assert seen == {64, 128}


def test_an_ascend_vector_kernel_runs_on_the_vector_cores():
    vadd = EXAMPLE.parents[1] / "test" / "ascend" / "Inputs" / "vadd_dynamic.mlir"
    shapes = {name: (1000,) for name in ("x", "y", "z")}
    (outcome,) = tune([(str(vadd), vadd.read_text())], "ascend910b", [2], jobs=1, shapes=shapes)
    p = outcome.prediction
    assert not outcome.uses_cube and (p.processor, p.processors, p.blocks_per_processor) == ("core", 48, 1)
    assert p.waves == -(-outcome.blocks // 48) and p.cycles == p.waves * outcome.cycles
