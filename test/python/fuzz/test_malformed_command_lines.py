"""Malformed pipelines, options, targets and flags (malformed_command_lines.py) are
usage errors of every driver (tile-opt, tile-run, tilepipe and its subcommands, the
AscendC printer): exit status 1, one line on stderr, never a traceback or argparse's
usage block."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilepipe.fuzz.malformed import INPUT, MalformedCase, run_case

from malformed_command_lines import malformed_command_lines

KERNEL = (Path(__file__).resolve().parents[3] / "test/regressions/negative_wait_group.mlir")
CASES = list(malformed_command_lines(seed=0, count=240))


def _problem(case: MalformedCase) -> str | None:
    case = MalformedCase(case.name, KERNEL.read_bytes(), case.driver, case.args)
    run = run_case(case)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    if run.status != 1 or len(lines) != 1 or "Traceback" in run.stderr:
        return f"{case.args[1:]}: exit {run.status}, stderr {lines[:3]}"
    return None


def test_every_malformed_command_line_is_one_line_and_exit_1():
    assert len({tuple(case.args) for case in CASES}) >= 200  # distinct cases
    problems = [problem for case in CASES if (problem := _problem(case)) is not None]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize(
    ("driver", "args", "message"),
    [
        ("tile-opt", [INPUT, "-p", "a,,b"], "expected a pass name, found ','"),
        ("tile-opt", [INPUT, "-p", "pipeline-planning{"], "unclosed '{'"),
        ("tile-opt", [INPUT, "--pass-pipeline", "builtin.module(func.func(pipeline-planning)"], "unclosed '('"),
        ("tile-opt", [INPUT, "-p", "builtin.module(gpu.module(thread-sync))"], "cannot nest passes under 'gpu.module'"),
        ("tile-opt", [INPUT, "-t", "ptx{chip=sm_75}"], "not a CUDA target"),
        ("tile-opt", [INPUT, "--bogus"], "tile-opt: error: unrecognized arguments: --bogus"),
        ("tile-run", [INPUT, "--bogus"], "tile-run: error: unrecognized arguments: --bogus"),
        ("tile-run", [INPUT, "--seed", "abc"], "tile-run: error: argument --seed: invalid int value: 'abc'"),
        ("tile-run", [], "tile-run: error: the following arguments are required: input_file"),
        ("tilepipe", ["frobnicate"], "tilepipe: error: argument command: invalid choice: 'frobnicate'"),
        ("tilepipe", ["compile"], "tilepipe compile: error: the following arguments are required: kernel"),
        ("tilepipe", ["compile", INPUT, "--emit", "sass"], "tilepipe compile: error: argument --emit: invalid choice: 'sass'"),
        ("tilepipe", ["tune", INPUT, "-j", "many"], "tilepipe tune: error: argument -j/--jobs: invalid int value: 'many'"),
        ("ascendc", [INPUT, "--bogus"], "ascendc: error: unrecognized arguments: --bogus"),
    ],
)
def test_messages_say_what_is_wrong_in_one_line(driver, args, message):
    run = run_case(MalformedCase("probe", KERNEL.read_bytes(), driver, args))
    assert run.status == 1
    (line,) = run.stderr.splitlines()
    assert message in line


def test_the_nested_syntax_runs_the_same_passes():
    flat = run_case(MalformedCase("flat", KERNEL.read_bytes(), "tile-opt", [INPUT, "-p", "pipeline-planning"]))
    nested = run_case(
        MalformedCase(
            "nested", KERNEL.read_bytes(), "tile-opt",
            [INPUT, "--pass-pipeline", "builtin.module(func.func(pipeline-planning))"],
        )
    )
    assert flat.status == nested.status == 0 and flat.stdout == nested.stdout
