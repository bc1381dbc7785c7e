"""Malformed pipelines, options, targets and flags (malformed_command_lines.py) are
usage errors: exit status 1, one line on stderr, never a traceback."""

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
    ("args", "message"),
    [
        (["-p", "a,,b"], "expected a pass name, found ','"),
        (["-p", "pipeline-planning{"], "unclosed '{'"),
        (["--pass-pipeline", "builtin.module(func.func(pipeline-planning)"], "unclosed '('"),
        (["-p", "builtin.module(gpu.module(thread-sync))"], "cannot nest passes under 'gpu.module'"),
        (["-t", "ptx{chip=sm_75}"], "not a CUDA target"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_messages_say_what_is_wrong(args, message):
    run = run_case(MalformedCase("probe", KERNEL.read_bytes(), "tile-opt", [INPUT, *args]))
    assert run.status == 1 and message in run.stderr


def test_the_nested_syntax_runs_the_same_passes():
    flat = run_case(MalformedCase("flat", KERNEL.read_bytes(), "tile-opt", [INPUT, "-p", "pipeline-planning"]))
    nested = run_case(
        MalformedCase(
            "nested", KERNEL.read_bytes(), "tile-opt",
            [INPUT, "--pass-pipeline", "builtin.module(func.func(pipeline-planning))"],
        )
    )
    assert flat.status == nested.status == 0 and flat.stdout == nested.stdout
