"""The schedule simulator (tilepipe/schedule_sim, docs/schedule_sim.md): the chapter's
§5.2 table on the chapter's kernel, agreement with the race detector's happens-before
on every example, monotonicity, the Gantt chart and the drivers."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tilepipe.schedule_sim import estimate_cycles
from tilepipe.schedule_sim.chapter import CHAPTER_TARGET, VARIANTS, chapter_kernel
from tilepipe.schedule_sim.svg import schedule_svg
from tilepipe.semantics.tile.grid_runner import find_races
from tilepipe.core.targets import Latency, get_target

from pipeline_helpers import apply_passes, with_num_stages
from tilepipe.core.flows import FLOWS

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
P80 = P90 = FLOWS["cuda"].spec("scheduled")

# The chapter's §5.2 (latency 30, compute 20, barrier 8, 16 iterations).
CHAPTER_TOTALS = {
    3: {"none": 350, "war": 350, "war+raw": 388, "+cb": 478, "sync-copy": 628},
    6: {"none": 350, "war": 350, "war+raw": 358, "+cb": 478, "sync-copy": 628},
}
CHAPTER_STEPS = {
    3: {"none": 20.0, "war": 20.0, "war+raw": 22.6, "+cb": 28.0, "sync-copy": 38.0},
    6: {"none": 20.0, "war": 20.0, "war+raw": 20.0, "+cb": 28.0, "sync-copy": 38.0},
}


def _chapter_with(**latencies: int):
    """The chapter's per-op model with some latencies changed."""
    changed = {key: Latency(cycles) for key, cycles in latencies.items()}
    return dataclasses.replace(CHAPTER_TARGET, latencies={**CHAPTER_TARGET.latencies, **changed})


@pytest.mark.parametrize("depth", [3, 6])
@pytest.mark.parametrize("variant", VARIANTS)
def test_chapter_table(depth, variant):
    report = estimate_cycles(chapter_kernel(variant, depth), target=CHAPTER_TARGET)
    assert report.total_cycles == CHAPTER_TOTALS[depth][variant]
    assert round(report.steady_step, 1) == CHAPTER_STEPS[depth][variant]


def test_chapter_sync_copy_at_latency_120():
    report = estimate_cycles(chapter_kernel("sync-copy", 3), target=_chapter_with(global_copy=120))
    assert report.steady_step == 128.0


def _scheduled(name: str, target: str, num_stages: int | None = None) -> str:
    text = (EXAMPLES / f"{name}.mlir").read_text()
    text = re.sub(r'tile.target = "sm_\d+"', f'tile.target = "{target}"', text)
    if num_stages is not None:
        text = with_num_stages(text, num_stages)
    return str(apply_passes(text, P90 if target == "sm_90" else P80))


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", ["gemm", "gemm_epilogue", "flash_attention"])
def test_simulated_order_is_one_the_race_detector_accepts(name, target):
    scheduled = _scheduled(name, target)
    assert find_races(scheduled, blocks=[(0, 0)]) == []
    report = estimate_cycles(scheduled)
    assert report.deadlock == []
    assert report.order_violations() == []


def test_a_racy_kernel_is_out_of_order_in_both():
    # The chapter's "none" variant has no WAR protection: the race detector reports
    # the refill of a slot, and the simulator runs that refill before the read.
    racy = chapter_kernel("none", 2)
    assert find_races(racy)
    assert estimate_cycles(racy, target=CHAPTER_TARGET).order_violations()


def _insert_barrier(text: str, after_line: int) -> str:
    lines = text.splitlines()
    indent = re.match(r"\s*", lines[after_line]).group(0)
    return "\n".join([*lines[: after_line + 1], indent + "pipeline.barrier", *lines[after_line + 1 :]])


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_a_redundant_barrier_never_lowers_cycles(target):
    scheduled = _scheduled("gemm", target)
    base = estimate_cycles(scheduled).total_cycles
    lines = scheduled.splitlines()
    body = [i for i, line in enumerate(lines) if line.strip().startswith(("tile.", "pipeline.", "%"))
            and "memref.view" not in line and "arith.constant" not in line]
    assert len(body) > 10
    for index in body:
        assert estimate_cycles(_insert_barrier(scheduled, index)).total_cycles >= base, lines[index]


@pytest.mark.parametrize("variant", ["war", "war+raw", "+cb"])
def test_chapter_redundant_barrier_never_lowers_cycles(variant):
    text = chapter_kernel(variant, 3)
    base = estimate_cycles(text, target=CHAPTER_TARGET).total_cycles
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if "tile.add" in line or "bulk_copy" in line or "async_copy" in line:
            with_barrier = estimate_cycles(_insert_barrier(text, index), target=CHAPTER_TARGET)
            assert with_barrier.total_cycles >= base


@pytest.mark.parametrize("latency, iterations", [(30, 16), (120, 64)])
def test_deeper_chapter_pipelines_never_raise_the_step(latency, iterations):
    # Copies are the bottleneck at latency 120; the loop is long enough for its second
    # half to be steady at every depth (16 rounds are not, at depth 4 and 5).
    target = _chapter_with(global_copy=latency)
    for variant in ("none", "war", "war+raw", "+cb"):
        steps = [
            estimate_cycles(chapter_kernel(variant, d, iterations), target=target).steady_step
            for d in range(2, 8)
        ]
        assert steps == sorted(steps, reverse=True), (variant, steps)


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_deeper_gemm_pipelines_never_raise_the_step_when_copies_bound(target):
    # Copies are the bottleneck at the targets' per-byte latencies (two 16 KiB tiles
    # against one 128x128x64 gemm per iteration).
    steps = [estimate_cycles(_scheduled("gemm", target, d)).steady_step for d in range(1, 6)]
    assert steps == sorted(steps, reverse=True), steps


def _copy_spans(report) -> list[tuple[str, int]]:
    """(destination tile shape, cycles on the copy engine) of every async copy."""
    return [
        ("x".join(map(str, span.item.op.tile_shape)), span.end - span.start)
        for span in report.timeline if span.item.op.name == "pipeline.async_copy"
    ]


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_copy_occupancy_follows_bytes(target):
    """Latencies are per byte (and per FLOP): halving a tile halves its copy's
    occupancy beyond the fixed part, and two tile shapes that move the same bytes
    per block keep the copy engine busy alike -- the per-op model charged the
    half-K tile twice as much, which made big tiles win by construction."""
    fixed = get_target(target).latencies["issue"].fixed
    # cp.async on both targets: the kernel is scheduled for sm_80 (sm_90's flow would
    # make bulk copies of them), its cycles estimated with the target's latencies.
    reports = {
        k: estimate_cycles(str(apply_passes(gemm_with_tile(128, 128, k), P80)), target=get_target(target))
        for k in (64, 32)
    }
    full = dict(_copy_spans(reports[64]))
    half = dict(_copy_spans(reports[32]))
    assert full["128x64"] - fixed == 2 * (half["128x32"] - fixed) > 0
    assert full["64x128"] - fixed == 2 * (half["32x128"] - fixed) > 0
    busy = {k: sum(c - fixed for _, c in _copy_spans(r)) for k, r in reports.items()}
    assert busy[64] == busy[32]
    per_op = {
        k: estimate_cycles(str(apply_passes(gemm_with_tile(128, 128, k), P80)), target=_chapter_with())
        for k in (64, 32)
    }
    assert len(_copy_spans(per_op[32])) == 2 * len(_copy_spans(per_op[64]))
    assert sum(c for _, c in _copy_spans(per_op[32])) == 2 * sum(c for _, c in _copy_spans(per_op[64]))


def test_gemm_latency_follows_flops():
    target = get_target("sm_80")
    gemm = target.latencies["gemm"]
    spans = {}
    for k in (64, 32):
        report = estimate_cycles(_scheduled_text(gemm_with_tile(128, 128, k), "sm_80"))
        spans[k] = next(s.end - s.start for s in report.timeline if s.item.op.name == "tile.gemm")
    assert spans[64] - gemm.fixed == 2 * (spans[32] - gemm.fixed) == 2 * 128 * 128 * 64 // int(gemm.rate)


def test_schedule_svg_has_a_lane_per_unit_and_marks_syncs():
    reports = [(f"num_stages={d}", estimate_cycles(_scheduled("gemm", "sm_80", d))) for d in (1, 3)]
    svg = schedule_svg(reports)
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg.count(">copy</text>") == 2 and svg.count(">compute</text>") == 2
    assert "url(#hatch)" in svg  # block barriers
    assert "<title>prologue</title>" in svg and "<title>epilogue</title>" in svg
    assert "pipeline.wait_group" in svg
    assert schedule_svg(reports) == svg  # deterministic


# -- tilepipe tune

GEMM_SHAPES = [(128, 128, 64), (128, 128, 32), (64, 128, 64), (64, 64, 64)]


def gemm_with_tile(m: int, n: int, k: int) -> str:
    """examples/gemm.mlir with an m x n block tile and a k-deep step (1024^3 problem)."""
    text = (EXAMPLES / "gemm.mlir").read_text()
    text = text.replace("array<i64: 8, 8>", f"array<i64: {1024 // n}, {1024 // m}>")
    text = text.replace("%c16 = arith.constant 16", f"%c16 = arith.constant {1024 // k}")
    text = text.replace("%m0 = arith.muli %by, %c128", "%m0 = arith.muli %by, %cbm")
    text = text.replace("%n0 = arith.muli %bx, %c128", "%n0 = arith.muli %bx, %cbn")
    text = text.replace("%k0 = arith.muli %ko, %c64", "%k0 = arith.muli %ko, %cbk")
    text = text.replace(
        "%zero =", f"%cbm = arith.constant {m} : index\n  %cbn = arith.constant {n} : index\n"
        f"  %cbk = arith.constant {k} : index\n  %zero =",
    )
    for old, new in (("128x64", f"{m}x{k}"), ("64x128", f"{k}x{n}"), ("128x128x64", f"{m}x{n}x{k}"),
                     ("128x128", f"{m}x{n}")):
        text = re.sub(rf"(?<![\dx]){old}(?!\d|x\d)", new, text)
    return text


def test_gemm_tile_variants_run():
    for shape in GEMM_SHAPES:
        text = gemm_with_tile(*shape)
        assert estimate_cycles(_scheduled_text(text, "sm_80")).total_cycles > 0


def _scheduled_text(text: str, target: str) -> str:
    return str(apply_passes(text, P90 if target == "sm_90" else P80))


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_tune_gemm_pick_fits_and_over_budget_is_listed(target):
    from tilepipe.drivers.tune import best, format_table, tune

    text = (EXAMPLES / "gemm.mlir").read_text()
    outcomes = tune([("gemm.mlir", text)], target, [1, 2, 3, 8], run_ptxas=True, jobs=2)
    chosen = best(outcomes)
    assert chosen is not None and chosen.fits
    assert chosen.arena_bytes <= get_target(target).shared_memory_bytes
    assert chosen.registers is not None and chosen.registers <= 255
    deepest = outcomes[-1]
    assert deepest.config.num_stages == 8 and not deepest.fits
    assert "shared" in deepest.rejected
    table = format_table(outcomes, chosen)
    assert "rejected: " in table and table.count("\n") == len(outcomes)
    assert f"num_stages={chosen.config.num_stages}" in table.splitlines()[1 + outcomes.index(chosen)]
    assert "num_stages = " in chosen.text


def test_tune_flash_attention():
    from tilepipe.drivers.tune import best, tune

    text = (EXAMPLES / "flash_attention.mlir").read_text()
    outcomes = tune([("flash_attention.mlir", text)], "sm_80", [1, 2, 12], run_ptxas=True, jobs=2)
    chosen = best(outcomes)
    assert chosen is not None and chosen.fits and chosen.registers <= 255
    assert chosen.arena_bytes <= get_target("sm_80").shared_memory_bytes
    assert not outcomes[-1].fits and "shared" in outcomes[-1].rejected


def test_tune_ascend_reports_flags_and_locks():
    from tilepipe.drivers.tune import best, tune

    text = (EXAMPLES / "ascend_matmul.mlir").read_text()
    outcomes = tune([("ascend_matmul.mlir", text)], "ascend910b", [2, 5], jobs=1)
    assert [o.fits for o in outcomes] == [True, True]
    assert outcomes[0].flags.endswith("/8") and "locks" in outcomes[1].flags
    # Spilling to the lock pool costs cycles: the tuner keeps the flags.
    assert best(outcomes) is outcomes[0]


def test_tune_command(tmp_path, capsys):
    from tilepipe.drivers.cli import main

    shapes = []
    for shape in GEMM_SHAPES[:2]:
        path = tmp_path / ("gemm_%dx%dx%d.mlir" % shape)
        path.write_text(gemm_with_tile(*shape))
        shapes.append(str(path))
    out = tmp_path / "best.mlir"
    status = main(["tune", *shapes, "--target", "sm_80", "--num-stages", "2,3", "--no-ptxas",
                   "-j", "2", "-o", str(out)])
    assert status == 0
    table = capsys.readouterr().err
    assert table.count("num_stages=") == 4 and table.count("\n* ") + table.startswith("* ") == 1
    assert "pipeline.for" in out.read_text()


def test_compile_draws_the_schedule(tmp_path):
    from tilepipe.drivers.cli import main

    svg = tmp_path / "gemm.svg"
    status = main(["compile", str(EXAMPLES / "gemm.mlir"), "--target", "sm_90", "--emit", "nvvm",
                   "--no-ptxas", "-q", "-o", str(tmp_path / "gemm.nvvm"), "--num-stages", "2",
                   "--schedule-svg", str(svg)])
    assert status == 0
    text = svg.read_text()
    assert "gemm num_stages=2: " in text and "cycles, steady state" in text and "pipeline.bulk_copy" in text
