"""``tilepipe tune`` over tile sizes a kernel declares (``tile.tune``,
examples/gemm_tune.mlir): every combination times every depth, the pick fits every
budget, over-budget and impossible combinations are listed with their reasons, and
malformed declarations are located diagnostics."""

from __future__ import annotations

from pathlib import Path

from tilepipe.core.targets import get_target
from tilepipe.drivers.tune import best, declared_sizes, format_table, tune

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "gemm_tune.mlir"


def test_declared_sizes_are_every_combination_in_declaration_order():
    sizes = declared_sizes(str(EXAMPLE), EXAMPLE.read_text())
    assert sizes == [
        (("block_M", 64), ("block_K", 64)), (("block_M", 64), ("block_K", 128)),
        (("block_M", 128), ("block_K", 64)), (("block_M", 128), ("block_K", 128)),
    ]
    assert declared_sizes("gemm.mlir", (EXAMPLE.parent / "gemm.mlir").read_text()) == [()]


def test_tune_declared_tile_sizes_picks_a_fitting_configuration():
    # 4 tile shapes x 3 depths, with ptxas (the deepest two are over budget for the
    # big tiles).
    outcomes = tune([(str(EXAMPLE), EXAMPLE.read_text())], "sm_80", [2, 4, 5], jobs=2)
    assert len(outcomes) == 12
    assert len({o.config.params for o in outcomes}) == 4
    chosen = best(outcomes)
    assert chosen is not None and chosen.fits
    assert chosen.arena_bytes <= get_target("sm_80").shared_memory_bytes
    assert chosen.registers is not None and chosen.registers <= 255
    assert all(o.kernel_cycles >= chosen.kernel_cycles for o in outcomes if o.fits)
    # The chosen kernel is concrete: its sizes instantiated, the declarations gone.
    sizes = dict(chosen.config.params)
    assert "tile.tune" not in chosen.text and "tile.dims" not in chosen.text
    assert f"memref<{sizes['block_M']}x{sizes['block_K']}xf16, \"shared\">" in chosen.text
    # Over the shared-memory budget: the deep pipelines of the big tiles, with why.
    over = [o for o in outcomes if not o.fits]
    assert {(dict(o.config.params)["block_K"], o.config.num_stages) for o in over} >= {
        (128, 4), (128, 5)
    }
    assert all("exceeds the sm_80 budget" in o.rejected for o in over)
    table = format_table(outcomes, chosen)
    assert table.count("rejected: ") == len(over)
    assert "* gemm_tune.mlir " + chosen.config.label.split(" ", 1)[1] in table


def test_a_size_the_kernel_cannot_take_is_rejected_with_the_reason():
    text = EXAMPLE.read_text().replace("block_K = [64, 128]", "block_K = [64, 96]")
    outcomes = tune([("gemm_tune.mlir", text)], "sm_80", [2], run_ptxas=False, jobs=1)
    reasons = {dict(o.config.params)["block_K"]: o.rejected for o in outcomes}
    assert reasons[64] is None
    assert reasons[96] == "'arith.constant' op counts tiles of 'block_K' over 1024, which block_K = 96 does not divide"


def test_a_dimension_that_does_not_name_its_parameter_is_rejected():
    # The A copy's tile.dims dropped: it stays a 128x64 tile.  Into a 64-row buffer
    # that is out of bounds (the copy's verifier); into a 128x128 one it fills half,
    # and the gemm reads the other half uninitialized (the simulation).
    text = EXAMPLE.read_text().replace(
        '-> %A_s {tile.dims = ["block_M", "block_K"]}', "-> %A_s"
    )
    outcomes = tune([("gemm_tune.mlir", text)], "sm_80", [2], run_ptxas=False, jobs=1)
    reasons = {tuple(v for _, v in o.config.params): o.rejected for o in outcomes}
    assert reasons[(128, 64)] is None  # the sizes the kernel is written at
    for sizes in ((64, 64), (64, 128)):
        assert reasons[sizes].startswith("'tile.copy' op dst region [0, 128) is out of bounds")
    assert reasons[(128, 128)].startswith("'tile.gemm' op reads uninitialized memory: %A_s")


def test_malformed_declarations_are_located_diagnostics(tmp_path, capsys):
    from tilepipe.drivers.cli import main

    bad = tmp_path / "bad.mlir"
    bad.write_text(EXAMPLE.read_text().replace('{tile.param = "block_K"}', '{tile.param = "block_k"}'))
    assert main(["tune", str(bad), "--target", "sm_80", "--no-ptxas", "-j", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:21:" in err and "error: 'arith.constant' op 'tile.param' names 'block_k', which the kernel's 'tile.tune' does not declare" in err
