"""The foundation's contracts: upstream MLIR reads our generic text, the stock
xdsl-opt sees tilepipe through the entry point, and tile-opt never shows a traceback
for bad input."""

import subprocess
import sys
from pathlib import Path

import pytest
from mlir import ir

from conftest import EXAMPLES, ROOT

TILE_OPT = [sys.executable, "-m", "tilepipe"]
ROUNDTRIP_FILES = sorted((ROOT / "test" / "dialects").glob("*/roundtrip.mlir"))
UPSTREAM_FILES = sorted(EXAMPLES.glob("*.mlir")) + ROUNDTRIP_FILES


def run(args, stdin=None):
    return subprocess.run(args, input=stdin, capture_output=True, text=True)


def generic_chunks(path: Path) -> list[str]:
    result = run(TILE_OPT + [str(path), "--split-input-file", "--print-op-generic"])
    assert result.returncode == 0, result.stderr
    return [c for c in result.stdout.split("// -----") if c.strip()]


@pytest.mark.parametrize("path", UPSTREAM_FILES, ids=lambda p: p.name)
def test_generic_form_parses_in_upstream_mlir(path):
    for chunk in generic_chunks(path):
        ctx = ir.Context()
        ctx.allow_unregistered_dialects = True
        module = ir.Module.parse(chunk, ctx)
        assert module.operation.verify()


def test_upstream_generic_output_reads_back(tmp_path):
    """MLIR's own generic printing of a tile kernel parses in tile-opt again."""
    (chunk,) = generic_chunks(EXAMPLES / "gemm.mlir")
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    module = ir.Module.parse(chunk, ctx)
    upstream_text = module.operation.get_asm(print_generic_op_form=True)
    result = run(TILE_OPT + ["-"], stdin=upstream_text)
    assert result.returncode == 0, result.stderr
    assert "tile.gemm<128x128x64>" in result.stdout


def test_stock_xdsl_opt_sees_tilepipe_through_entry_point():
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()
    assert {"tile", "pipeline"} <= set(multiverse.all_dialects)
    result = run(["xdsl-opt", str(EXAMPLES / "gemm.mlir")])
    assert result.returncode == 0, result.stderr
    assert "pipeline.for %ko = %c0 to %c16 step %c1 num_stages = 3" in result.stdout


def test_list_passes():
    result = run(TILE_OPT + ["--list-passes"])
    assert result.returncode == 0
    assert result.stdout.startswith("tilepipe passes:")
    assert "xDSL passes" in result.stdout


@pytest.mark.parametrize(
    "text, message",
    [
        ("func.func @f() {\n  %x = tile.nope\n}\n", "error: Operation tile.nope is not registered"),
        ("func.func @f( {\n", "<stdin>:1:"),
        (
            "func.func @f() attributes {x = #nope.thing<1>} {\n  func.return\n}\n",
            "<stdin>:1:",
        ),
        (
            "func.func @f(%a: index) {\n  %b = arith.addf %a, %a : index\n"
            "  func.return\n}\n",
            "<stdin>:2:3: error:",
        ),
        (
            "func.func @f() attributes {tile.threads = 7 : i64} {\n  func.return\n}\n",
            "<stdin>:1:1: error: 'func.func' op 'tile.threads' must be a multiple of 32",
        ),
    ],
)
def test_bad_input_is_one_diagnostic_not_a_traceback(text, message):
    result = run(TILE_OPT + ["-"], stdin=text)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert message in result.stderr
    assert result.stderr.count("error:") == 1
