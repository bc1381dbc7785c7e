"""merge-shared-memory on whole kernels: the chapter's §3.4 table at num_stages 1-5,
idempotence, the arena form in upstream MLIR, and the aliasing read-back."""

from __future__ import annotations

import subprocess
import sys

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from tilepipe.core.diagnostics import OpDiagnosticError
from tilepipe.passes.memory.arena_aliasing import ARENA_ATTR, arena_slice, may_alias, reused_bytes
from tilepipe.passes.memory.merge_shared_memory import MergeSharedMemory, plan_arenas
from tilepipe.core.registry import make_context

KiB = 1024
TILE_OPT = [sys.executable, "-m", "tilepipe"]


def scheduled_gemm(num_stages: int, scenario: str, target: str = "sm_90") -> str:
    """The chapter's 128x128x64 f16 GEMM at the scheduled level, as
    inject-software-pipeline lays it out: every copied tile has num_stages versions;
    prologue (num_stages - 1 copies ahead), steady state, epilogue.

    ``epilogue``: plus a 32 KiB C_shared used once after the loop.
    ``carry``: plus a 16 KiB S_shared copied every iteration, read in the last stage.
    """
    v = num_stages

    def shared(shape: str) -> str:
        return f'memref<{v}x{shape}xf16, "shared">'

    tiles = [("A_shared", "128x64", "%A", "%c0, {k}"), ("B_shared", "64x128", "%B", "{k}, %c0")]
    if scenario == "carry":
        tiles.append(("S_shared", "128x64", "%S", "%c0, {k}"))
    fragment = 'memref<128x128xf32, "fragment">'
    gm = "memref<1024x1024xf16>"

    def consume(slot: str, indent: str) -> list[str]:
        lines = [
            f"{indent}tile.gemm<128x128x64> %A_shared[{slot}, %c0, %c0], "
            f"%B_shared[{slot}, %c0, %c0] -> %C_f : {shared('128x64')}, "
            f"{shared('64x128')} -> {fragment}"
        ]
        if scenario == "carry":
            lines.append(
                f"{indent}tile.copy<128x64> %S_shared[{slot}, %c0, %c0] -> %S_f : "
                f'{shared("128x64")} -> memref<128x64xf16, "fragment">'
            )
        return lines

    trip = 16 - (v - 1)
    body = [
        f"func.func @gemm_{scenario}_{v}(%A: {gm}, %B: {gm}, %S: {gm}, %C: {gm})",
        f'    attributes {{tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64, '
        f'tile.target = "{target}"}} {{',
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %cv = arith.constant {v} : index",
        f"  %ctrip = arith.constant {trip} : index",
        "  %c64 = arith.constant 64 : index",
        "  %zero = arith.constant 0.000000e+00 : f32",
    ]
    for name, shape, _, _ in tiles:
        body.append(
            f"  %{name} = memref.alloc() {{pipeline.versions = {v} : i64}} : {shared(shape)}"
        )
    body.append(f"  %C_f = memref.alloc() : {fragment}")
    body.append('  %S_f = memref.alloc() : memref<128x64xf16, "fragment">')
    if scenario == "epilogue":
        body.append('  %C_shared = memref.alloc() : memref<128x128xf16, "shared">')
    body.append(f"  tile.fill<128x128> %zero -> %C_f : f32 -> {fragment}")
    for p in range(v - 1):
        body.append(f"  %k_{p} = arith.constant {64 * p} : index")
        body.append(f"  %slot_{p} = arith.constant {p} : index")
        for name, shape, src, offsets in tiles:
            body.append(
                f"  tile.copy<{shape}> {src}[{offsets.format(k=f'%k_{p}')}] -> "
                f"%{name}[%slot_{p}, %c0, %c0] : {gm} -> {shared(shape)}"
            )
    body += [
        "  scf.for %k = %c0 to %ctrip step %c1 {",
        "    %ahead = arith.addi %k, %cv : index",
        "    %iteration = arith.subi %ahead, %c1 : index",
        "    %k0 = arith.muli %iteration, %c64 : index",
        "    %write_slot = arith.remui %iteration, %cv : index",
        "    %read_slot = arith.remui %k, %cv : index",
    ]
    for name, shape, src, offsets in tiles:
        body.append(
            f"    tile.copy<{shape}> {src}[{offsets.format(k='%k0')}] -> "
            f"%{name}[%write_slot, %c0, %c0] : {gm} -> {shared(shape)}"
        )
    body += consume("%read_slot", "    ")
    body.append("  }")
    for e in range(v - 1):
        body.append(f"  %drain_{e} = arith.constant {(trip + e) % v} : index")
        body += consume(f"%drain_{e}", "  ")
    if scenario == "epilogue":
        c_shared = 'memref<128x128xf16, "shared">'
        body.append(f"  tile.cast<128x128> %C_f -> %C_shared : {fragment} -> {c_shared}")
        body.append(f"  tile.copy<128x128> %C_shared -> %C[%c0, %c0] : {c_shared} -> {gm}")
    body += ["  func.return", "}"]
    return "\n".join(body) + "\n"




def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def layout_of(text: str, reuse: bool = True):
    module = parse(text)
    (func_op,) = module.ops
    (layout,) = plan_arenas(func_op, reuse=reuse)
    return layout


def table(layout) -> dict[str, tuple[int, int]]:
    return {b.name: (b.versions, layout.offset(b)) for b in layout.buffers}


# --------------------------------------------------------------------------- §3.4


def test_chapter_epilogue_scenario_at_two_stages():
    layout = layout_of(scheduled_gemm(2, "epilogue"))
    assert table(layout) == {
        "A_shared": (2, 0),
        "B_shared": (2, 32 * KiB),
        "C_shared": (1, 0),
    }
    assert layout.no_reuse_bytes == 96 * KiB
    assert layout.size == 64 * KiB
    assert layout.fits


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4, 5])
def test_epilogue_buffer_always_reuses_the_pipeline_bytes(num_stages):
    layout = layout_of(scheduled_gemm(num_stages, "epilogue"))
    pipelined = 2 * num_stages * 16 * KiB
    assert layout.size == max(pipelined, 32 * KiB) == layout.peak_live_bytes
    assert layout.no_reuse_bytes == pipelined + 32 * KiB
    assert layout.offset(next(b for b in layout.buffers if b.name == "C_shared")) == 0


@pytest.mark.parametrize("num_stages", [1, 2, 3, 4, 5])
def test_carry_scenario_reuses_nothing(num_stages):
    layout = layout_of(scheduled_gemm(num_stages, "carry"))
    assert layout.size == layout.no_reuse_bytes == 3 * num_stages * 16 * KiB
    assert layout.fits == (num_stages <= 4)  # 192 KiB fits sm_90's 227 KiB, 240 not


def test_carry_at_five_stages_fails_at_compile_time_naming_the_knob():
    module = parse(scheduled_gemm(5, "carry"))
    with pytest.raises(OpDiagnosticError) as err:
        MergeSharedMemory().apply(make_context(), module)
    message = err.value.diagnostic.message
    assert "245760 bytes (240.0 KiB) exceeds the sm_90 budget of 232448 bytes" in message
    assert "A_shared 5 x 16384 B, B_shared 5 x 16384 B, S_shared 5 x 16384 B" in message
    assert message.endswith("num_stages = 4 fits (196608 B)")


def test_disable_reuse_costs_the_epilogue_buffer():
    layout = layout_of(scheduled_gemm(2, "epilogue"), reuse=False)
    assert layout.size == layout.no_reuse_bytes == 96 * KiB


# --------------------------------------------------------------------------- the rewrite


def run_tile_opt(text: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        TILE_OPT + ["-", *args], input=text, capture_output=True, text=True
    )


def test_pass_is_idempotent():
    once = run_tile_opt(scheduled_gemm(3, "epilogue"), "-p", "merge-shared-memory")
    twice = run_tile_opt(
        scheduled_gemm(3, "epilogue"), "-p", "merge-shared-memory,merge-shared-memory"
    )
    assert once.returncode == twice.returncode == 0, once.stderr + twice.stderr
    assert once.stdout == twice.stdout


def test_arena_form_parses_in_upstream_mlir():
    from mlir import ir

    result = run_tile_opt(
        scheduled_gemm(2, "epilogue"), "-p", "merge-shared-memory", "--print-op-generic"
    )
    assert result.returncode == 0, result.stderr
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    module = ir.Module.parse(result.stdout, ctx)
    assert module.operation.verify()
    upstream_text = str(module)
    assert upstream_text.count("memref.view") == 3
    assert 'memref.alloc() {alignment = 16 : i64' in upstream_text
    assert 'memref<65536xi8, "shared">' in upstream_text


def test_views_expose_the_aliasing_for_sync_insertion():
    module = parse(scheduled_gemm(2, "epilogue"))
    MergeSharedMemory().apply(make_context(), module)
    views = {
        op.result.name_hint: op.result
        for op in module.walk()
        if op.name == "memref.view"
    }
    a, b, c = (arena_slice(views[n]) for n in ("A_shared", "B_shared", "C_shared"))
    assert a is not None and b is not None and c is not None
    assert (a.start, a.end, b.start, b.end, c.start, c.end) == (
        0, 32 * KiB, 32 * KiB, 64 * KiB, 0, 32 * KiB,
    )
    assert a.arena is b.arena is c.arena
    # C_shared reuses A_shared's bytes: a WAR hazard sync insertion must order.
    assert may_alias(views["C_shared"], views["A_shared"])
    assert not may_alias(views["C_shared"], views["B_shared"])
    assert not may_alias(views["A_shared"], views["B_shared"])
    # The arena's table says the same: A_shared's bytes are reused by C_shared.
    (arena,) = [op for op in module.walk() if ARENA_ATTR in op.attributes]
    assert [(x.name, y.name) for x, y in reused_bytes(arena)] == [("A_shared", "C_shared")]


def test_unknown_report_format_is_an_error_not_a_traceback():
    result = run_tile_opt(scheduled_gemm(2, "epilogue"), "-p", "merge-shared-memory{report=xml}")
    assert result.returncode == 1
    assert "unknown report format 'xml' (expected text or json)" in result.stderr
    assert "Traceback" not in result.stderr
