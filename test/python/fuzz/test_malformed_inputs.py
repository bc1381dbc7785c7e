"""Every driver keeps its promise on malformed input (tilepipe/fuzz/malformed.py).

A seeded sample of ~150 cases runs in-process through the drivers' ``main(argv)``;
``TILEPIPE_MALFORMED_CASES=N`` runs N cases instead (and ``TILEPIPE_MALFORMED_SEED``
picks the seed).
"""

from __future__ import annotations

import os

import pytest

from sweeps import sample_size
from tilepipe.fuzz.malformed import (
    BAD_COMMAND_LINES,
    COMMAND_LINE,
    CONTENT_MUTATIONS,
    DRIVERS,
    INPUT,
    MalformedCase,
    check_malformed,
    corpus,
    deep_nesting,
    insert_non_utf8,
    malformed_cases,
)

SEED = int(os.environ.get("TILEPIPE_MALFORMED_SEED", "0"))
COUNT = sample_size("TILEPIPE_MALFORMED_CASES", quick=150, long=1000)


def test_the_drivers_keep_their_promise_on_malformed_input():
    failures = [
        problem
        for case in malformed_cases(SEED, COUNT)
        if (problem := check_malformed(case)) is not None
    ]
    assert not failures, "\n".join(failures)


def test_the_cases_are_deterministic_and_cover_every_driver_and_mutation():
    first = list(malformed_cases(7, 400))
    again = list(malformed_cases(7, 400))
    assert first == again
    assert {case.driver for case in first} == set(DRIVERS)
    names = {case.name.rsplit(":", 1)[1] for case in first}
    assert {m.__name__ for m in CONTENT_MUTATIONS} <= names
    assert COMMAND_LINE.lstrip(":") in names


def test_the_corpus_is_the_examples_and_regression_kernels():
    names = [name for name, _ in corpus()]
    assert "gemm.mlir" in names and "ascend_vadd.mlir" in names
    assert "forward_declared_value.mlir" in names


# -- the checker itself finds broken promises (it is no test that cannot fail)


def _case(data: bytes, driver: str = "tile-opt", args: list[str] | None = None) -> MalformedCase:
    return MalformedCase("probe", data, driver, args or [INPUT])


def test_the_checker_reports_an_internal_error(monkeypatch):
    import tilepipe.drivers.opt

    def broken(self, module):
        raise KeyError("a bug")

    monkeypatch.setattr(tilepipe.drivers.opt.TileOptMain, "apply_passes", broken)
    problem = check_malformed(_case(b"func.func @f() {\n  func.return\n}\n"))
    assert problem is not None and "exited 2 (internal error)" in problem


def test_the_checker_reports_an_unlocated_error_about_the_input(monkeypatch):
    from tilepipe.core.diagnostics import Diagnostic, InputError
    import tilepipe.drivers.opt

    def unlocated(self, text, line_offset):
        raise InputError(Diagnostic("error", "something is wrong"))

    monkeypatch.setattr(tilepipe.drivers.opt.TileOptMain, "_parse", unlocated)
    problem = check_malformed(_case(b"func.func @f() {\n  func.return\n}\n"))
    assert problem is not None and "without a location" in problem


def test_the_checker_reports_an_empty_message(monkeypatch):
    from tilepipe.core.diagnostics import Diagnostic, InputError, SourceLocation
    import tilepipe.drivers.opt

    def empty(self, text, line_offset):
        raise InputError(Diagnostic("error", "", SourceLocation("f.mlir", 1, 1)))

    monkeypatch.setattr(tilepipe.drivers.opt.TileOptMain, "_parse", empty)
    problem = check_malformed(_case(b"func.func @f() {\n  func.return\n}\n"))
    assert problem is not None and "without a message" in problem


@pytest.mark.parametrize("driver", DRIVERS)
def test_non_utf8_and_deep_nesting_are_located_errors(driver):
    import random

    text = dict(corpus())["gemm.mlir"]
    args = ["compile", INPUT] if driver == "tilepipe" else [INPUT]
    for mutation in (insert_non_utf8, deep_nesting):
        case = _case(mutation(random.Random(3), text), driver, args)
        assert check_malformed(case) is None


def test_bad_command_lines_are_usage_errors():
    text = dict(corpus())["gemm.mlir"].encode()
    for driver, args in BAD_COMMAND_LINES:
        case = MalformedCase(f"probe{COMMAND_LINE}", text, driver, list(args))
        assert check_malformed(case) is None
