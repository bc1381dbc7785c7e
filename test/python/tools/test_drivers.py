"""The drivers' promise on bad input, shared by tile-opt, tile-run, tilepipe compile and
the AscendC printer (tilepipe.core.diagnostics.run_driver, tilepipe.core.source).

Reproducers of fuzz-2026-12 that lit cannot hold (bytes that are not UTF-8, 300 nested
regions) live here; the others are lit tests under test/regressions/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilepipe.core.source import MAX_REGION_DEPTH
from tilepipe.core.flows import FLOWS

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
REGRESSIONS = ROOT / "test" / "regressions"
CUDA_PIPELINE = FLOWS["cuda"].spec("scheduled")


def _main(driver: str):
    if driver == "tile-opt":
        from tilepipe.drivers.opt import main
    elif driver == "tile-run":
        from tilepipe.drivers.run import main
    elif driver == "tilepipe":
        from tilepipe.drivers.cli import main
    else:
        from tilepipe.drivers.ascendc import main
    return main


def run(driver: str, *args, capsys) -> tuple[int, str, str]:
    argv = [str(a) for a in args]
    if driver == "tilepipe" and argv[:1] != ["compile"]:
        argv = ["compile", *argv, "--no-ptxas", "-q"]
    status = _main(driver)(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


DRIVERS = ("tile-opt", "tile-run", "tilepipe", "ascendc")


def assert_one_located_error(status: int, err: str, path: Path, line: int, col: int, message: str):
    assert status == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert f"{path}:{line}:{col}: error: {message}" in err.splitlines(), err


# -- fuzz-2026-12/non_utf8.mlir: UnicodeDecodeError tracebacks before

NON_UTF8 = b"func.func @k() {\n  func.return\n}\n// \xff\xfe\n"


@pytest.mark.parametrize("driver", DRIVERS)
def test_bytes_that_are_not_utf8_are_a_located_error(driver, tmp_path, capsys):
    path = tmp_path / "non_utf8.mlir"
    path.write_bytes(NON_UTF8)
    status, _, err = run(driver, path, capsys=capsys)
    assert_one_located_error(
        status, err, path, 4, 4, "invalid UTF-8 byte 0xff (the input must be UTF-8 text)"
    )


# -- deep nesting: RecursionError in all three tools before


def nested(depth: int, loop: str = "scf.for") -> str:
    suffix = " num_stages = 2" if loop == "pipeline.for" else ""
    lines = [
        "func.func @deep(%A: memref<64xf32>) attributes {tile.grid = array<i64: 1>, "
        "tile.threads = 32 : i64} {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
    ]
    lines += [f"{'  ' * (n + 1)}{loop} %i{n} = %c0 to %c1 step %c1{suffix} {{" for n in range(depth)]
    lines += [
        f"{'  ' * (depth + 1)}%s = memref.alloc() : memref<16xf32, \"shared\">",
        f"{'  ' * (depth + 1)}tile.copy<16> %A -> %s : memref<64xf32> -> memref<16xf32, \"shared\">",
        f"{'  ' * (depth + 1)}tile.copy<16> %s -> %A : memref<16xf32, \"shared\"> -> memref<64xf32>",
    ]
    lines += [f"{'  ' * (n + 1)}}}" for n in reversed(range(depth))]
    lines += ["  func.return", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("loop", ["scf.for", "pipeline.for"])
def test_300_nested_regions_are_a_located_error(driver, loop, tmp_path, capsys):
    path = tmp_path / "deep.mlir"
    path.write_text(nested(300, loop))
    status, _, err = run(driver, path, capsys=capsys)
    # The function's body is level 1: the 64th loop opens level 65, on line 4 + 63.
    column = 2 * 64 + len(f"{loop} %i63 = %c0 to %c1 step %c1") + len(
        " num_stages = 2" if loop == "pipeline.for" else ""
    ) + 2
    assert_one_located_error(
        status, err, path, 4 + 63, column,
        f"regions nested deeper than {MAX_REGION_DEPTH} levels (tilepipe's limit)",
    )


def test_nesting_at_the_limit_goes_through_every_driver(tmp_path, capsys):
    """The limit leaves the passes, the printers and the interpreter room: a kernel
    nested to the limit is pipelined, printed, read back, run and lowered."""
    path = tmp_path / "deep.mlir"
    path.write_text(nested(MAX_REGION_DEPTH - 1))
    out_path = tmp_path / "out.mlir"
    status, _, err = run("tile-opt", path, "-p", CUDA_PIPELINE, "-o", out_path, capsys=capsys)
    assert status == 0, err
    status, _, err = run("tile-opt", out_path, "--print-op-generic", capsys=capsys)
    assert status == 0, err
    status, _, err = run("tile-run", out_path, "--compare-with", path, "--check-races", "--quiet", capsys=capsys)
    assert status == 0, err
    status, _, err = run("tilepipe", path, "--emit", "nvvm", capsys=capsys)
    assert status == 0, err


# -- one mechanism: internal errors, tracebacks, usage errors


INTERNAL_STATUS = {"tile-opt": 2, "tile-run": 4, "tilepipe": 2, "ascendc": 2}


@pytest.fixture
def broken_parser(monkeypatch):
    """Every driver parses through tilepipe.core.source.parse_source: make it a bug."""

    def broken(*args, **kwargs):
        raise KeyError("a bug in tilepipe")

    import tilepipe.drivers.opt
    import tilepipe.core.source

    monkeypatch.setattr(tilepipe.core.source, "parse_source", broken)
    monkeypatch.setattr(tilepipe.drivers.opt, "parse_source", broken)


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_internal_error_is_one_line_that_says_so(driver, broken_parser, capsys):
    status, _, err = run(driver, EXAMPLES / "gemm.mlir", capsys=capsys)
    assert status == INTERNAL_STATUS[driver]
    assert "Traceback" not in err
    prog = "tilepipe.drivers.ascendc" if driver == "ascendc" else driver
    assert err.splitlines() == [
        f"{prog}: internal error: KeyError: 'a bug in tilepipe' "
        "(rerun with --show-traceback to see where, and report it)"
    ]


@pytest.mark.parametrize("driver", DRIVERS)
def test_show_traceback_shows_the_traceback(driver, broken_parser, capsys):
    status, _, err = run(driver, EXAMPLES / "gemm.mlir", "--show-traceback", capsys=capsys)
    assert status == INTERNAL_STATUS[driver]
    assert "Traceback (most recent call last)" in err and "KeyError" in err


@pytest.mark.parametrize(
    "driver, args, message",
    [
        ("tile-opt", ["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        ("tile-opt", ["-p", "inject-software-pipeline{"], "unclosed '{' of pass options at column 25"),
        ("tile-run", ["--index-arg", "n"], "expected NAME=INTEGER"),
        ("tilepipe", ["compile", "{kernel}", "--target", "sm_75"], "invalid choice: 'sm_75'"),
        ("tilepipe", ["compile", "{kernel}", "--emit", "ascendc"], "--emit ascendc is not for target sm_80"),
        ("ascendc", ["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_a_bad_command_line_is_exit_1(driver, args, message, capsys):
    kernel = str(EXAMPLES / "gemm.mlir")
    argv = [a.replace("{kernel}", kernel) for a in args]
    if "{kernel}" not in args:
        argv = [kernel, *argv]
    status = _main(driver)(argv)
    err = capsys.readouterr().err
    assert status == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_unreadable_file_is_exit_1(driver, tmp_path, capsys):
    missing = tmp_path / "missing.mlir"
    status, _, err = run(driver, missing, capsys=capsys)
    assert status == 1
    assert re.search(rf"error: cannot read '{re.escape(str(missing))}': No such file", err), err


# -- tile-run


def test_tile_run_parse_errors_are_exit_1_not_internal(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @k() {\n  %x = arith.constant : index\n  func.return\n}\n")
    status, _, err = run("tile-run", path, capsys=capsys)
    assert status == 1 and re.search(rf"^{re.escape(str(path))}:2:\d+: error: \S", err, re.M), err


def test_tile_run_reports_a_difference_and_races_together(tmp_path, capsys):
    """A race explains the difference: both are printed, the status is the race's."""
    reference = REGRESSIONS / "commit_group_roundtrip.mlir"
    text = reference.read_text()
    raced = tmp_path / "raced.mlir"
    status, _, err = run("tile-opt", reference, "-p", CUDA_PIPELINE, "-o", raced, capsys=capsys)
    assert status == 0, err
    # Drop the wait inside the loop: the gemm reads the copy it does not wait for.
    scheduled = raced.read_text()
    raced.write_text(scheduled.replace("pipeline.wait_group 0\n", "", 1))
    assert raced.read_text() != scheduled and "%n: index" in text
    status, _, err = run(
        "tile-run", raced, "--compare-with", reference, "--check-races", "--quiet",
        "--index-arg", "n=3", capsys=capsys,
    )
    assert status == 3, err
    assert "race (RAW)" in err and "tile-run: error: outputs differ" in err
    assert err.index("race (RAW)") < err.index("outputs differ")


def test_tile_run_help_lists_the_exit_statuses(capsys):
    from tilepipe.drivers.run import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for line in ("0  the kernel ran", "1  bad input", "2  --compare-with", "3  --check-races", "4  internal error"):
        assert line in out


# -- targets: checked before any pass, against the record's memory spaces


def test_a_cuda_kernel_for_the_ascend_target_is_a_located_error(capsys):
    status, _, err = run("tilepipe", "compile", EXAMPLES / "gemm.mlir", "--target", "ascend", capsys=capsys)
    assert_one_located_error(
        status, err, EXAMPLES / "gemm.mlir", 8, 1,
        "'func.func' op is a kernel for 'sm_80' (tile.target, a CUDA target) and cannot be "
        "compiled for 'ascend910b' (--target, an Ascend target)",
    )


def test_cuda_memory_spaces_on_the_ascend_target_are_a_located_error(tmp_path, capsys):
    path = tmp_path / "shared_on_ascend.mlir"
    text = (EXAMPLES / "ascend_vadd.mlir").read_text()
    path.write_text(text.replace(', tile.target = "ascend910b"', "").replace('"ub"', '"shared"'))
    status, _, err = run("tilepipe", "compile", path, "--target", "ascend", capsys=capsys)
    line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if '"shared"' in l)
    assert_one_located_error(
        status, err, path, line, 3,
        "'memref.alloc' op result #0 is in memory space \"shared\", which target "
        "'ascend910b' does not have (it has \"global\", \"gm\", \"l1\", \"l0a\", \"l0b\", "
        "\"l0c\", \"ub\")",
    )


def test_a_cuda_kernel_is_retargeted_within_its_kind(capsys):
    status, _, err = run("tilepipe", EXAMPLES / "gemm.mlir", "--target", "sm_90", "--emit", "nvvm", capsys=capsys)
    assert status == 0, err


# -- host code that calls a kernel: --host-launch keeps a launcher of the kernel's name

HOST_CALLER = """
func.func @step(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf32>) {
  func.call @gemm(%A, %B, %C) : (memref<1024x1024xf16>, memref<1024x1024xf16>, memref<1024x1024xf32>) -> ()
  return
}
"""


def test_host_code_calling_a_kernel_needs_host_launch(tmp_path, capsys):
    path = tmp_path / "host_call.mlir"
    path.write_text((EXAMPLES / "gemm.mlir").read_text() + HOST_CALLER)
    call_line = next(i for i, l in enumerate(path.read_text().splitlines(), 1) if "func.call" in l)
    status, _, err = run("tilepipe", path, "--emit", "nvvm", capsys=capsys)
    assert_one_located_error(
        status, err, path, call_line, 3,
        "'func.call' op refers to kernel @gemm, which lower-to-nvvm moves into a gpu.module; "
        "use lower-to-nvvm{host-launch=true} (tilepipe compile --host-launch) to leave a host "
        "launcher of that name",
    )
    status, out, err = run("tilepipe", path, "--emit", "nvvm", "--host-launch", capsys=capsys)
    assert status == 0, err
    launcher = out[out.index("func.func @gemm(") : out.index("func.func @step(")]
    assert "gpu.launch_func  @tilepipe_kernels::@gemm blocks in" in launcher
    assert "call @gemm(%arg0, %arg1, %arg2)" in out[out.index("func.func @step(") :]


def test_compile_takes_the_target_the_kernel_names(tmp_path, capsys):
    """Without --target, a kernel written for sm_90a gets the sm_90a flow (its tensor
    maps), an Ascend kernel the Ascend one; kernels naming two targets must choose."""
    from tilepipe.drivers.cli import main

    hopper = tmp_path / "gemm_sm90a.mlir"
    hopper.write_text((EXAMPLES / "gemm.mlir").read_text().replace('"sm_80"', '"sm_90a"'))
    out = tmp_path / "out.mlir"
    assert main(["compile", str(hopper), "--emit", "nvvm", "--no-ptxas", "-o", str(out)]) == 0
    assert "--target sm_90a" in capsys.readouterr().err
    assert "tilepipe.tensor_maps" in out.read_text()
    assert main(["compile", str(EXAMPLES / "ascend_vadd.mlir"), "-q", "-o", str(out)]) == 0
    assert "__aicore__" in out.read_text()
    both = tmp_path / "both.mlir"
    both.write_text(hopper.read_text() + (EXAMPLES / "gemm.mlir").read_text().replace(
        "func.func @gemm", "func.func @gemm80"))
    assert main(["compile", str(both), "-q", "-o", str(out)]) == 1
    assert "the kernels name different targets (sm_80, sm_90a)" in capsys.readouterr().err


def test_tune_takes_the_target_the_kernels_name(tmp_path, capsys):
    """tilepipe tune, like compile: an sm_90a kernel is tuned for sm_90a (its arena
    aligned for the tensor maps' swizzled boxes), kernels naming two targets must
    choose."""
    from tilepipe.drivers.cli import main

    hopper = tmp_path / "tune_sm90a.mlir"
    hopper.write_text((EXAMPLES / "gemm_tune.mlir").read_text().replace('"sm_80"', '"sm_90a"'))
    out = tmp_path / "best.mlir"
    args = ["tune", str(hopper), "--num-stages", "3", "--no-ptxas", "-o", str(out)]
    assert main(args) == 0
    table = capsys.readouterr().err
    assert "block_M=128 block_K=64 num_stages=3  99328" in table  # 98304 + the 1024 alignment
    assert main([*args, "--target", "sm_80"]) == 0
    assert "block_M=128 block_K=64 num_stages=3  98304" in capsys.readouterr().err
    sm80 = tmp_path / "tune_sm80.mlir"
    sm80.write_text((EXAMPLES / "gemm_tune.mlir").read_text())
    assert main(["tune", str(hopper), str(sm80), "--num-stages", "3", "--no-ptxas"]) == 1
    assert "the kernels name different targets (sm_80, sm_90a)" in capsys.readouterr().err
