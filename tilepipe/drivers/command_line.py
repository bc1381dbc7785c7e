"""What every command-line driver shares: ``--verify-diagnostics`` matching, exit
statuses, one-line usage errors and :func:`run_driver`, which turns bad input into
located diagnostics and a bug into one "internal error" line.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from tilepipe.core.diagnostics import DiagnosedError, Diagnostic, diagnostic_of_exception


# -- --verify-diagnostics

_EXPECTED = re.compile(
    r"expected-(?P<severity>error|warning|remark|note)\s*"
    r"(?:@(?P<anchor>[+-]\d+|above|below))?\s*\{\{(?P<message>.*?)\}\}"
)


@dataclass(frozen=True)
class ExpectedDiagnostic:
    severity: str
    message: str
    line: int


def expected_diagnostics(text: str, line_offset: int = 0) -> list[ExpectedDiagnostic]:
    expectations: list[ExpectedDiagnostic] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        for match in _EXPECTED.finditer(line):
            anchor = match.group("anchor")
            target = index + 1
            if anchor == "above":
                target -= 1
            elif anchor == "below":
                target += 1
            elif anchor is not None:
                target += int(anchor)
            expectations.append(
                ExpectedDiagnostic(
                    match.group("severity"),
                    match.group("message"),
                    target + line_offset,
                )
            )
    return expectations


def match_expected(
    expected: list[ExpectedDiagnostic], produced: list[Diagnostic]
) -> list[str]:
    """Problems (empty when every produced diagnostic was expected and vice versa)."""
    problems: list[str] = []
    unmatched = list(produced)
    for exp in expected:
        for diag in unmatched:
            same_line = diag.location is not None and diag.location.line == exp.line
            if (
                diag.severity == exp.severity
                and same_line
                and exp.message in diag.message
            ):
                unmatched.remove(diag)
                break
        else:
            problems.append(
                f"line {exp.line}: expected {exp.severity} \"{exp.message}\" "
                "was not produced"
            )
    for diag in unmatched:
        problems.append(f"unexpected {diag}")
    return problems


# -- the drivers' promise on bad input (tile-opt, tile-run, tilepipe, the AscendC printer)

EXIT_INPUT_ERROR = 1
EXIT_INTERNAL_ERROR = 2
# argparse exits 2 on a usage error; for tilepipe's drivers 2 means an internal error.
_ARGPARSE_USAGE_STATUS = 2


def run_driver(
    prog: str,
    argv: Sequence[str] | None,
    setup: Callable[[Sequence[str] | None], object],
    body: Callable[[object], int],
    *,
    internal_status: int = EXIT_INTERNAL_ERROR,
) -> int:
    """Run a command-line driver and keep its promise; return its exit status.

    ``setup(argv)`` parses the command line, ``body(setup's result)`` does the work and
    returns a status.  Bad input -- a bad command line, a :class:`DiagnosedError`, an
    xDSL diagnostic -- prints located one-line diagnostics and gives
    :data:`EXIT_INPUT_ERROR`; anything else is a bug in tilepipe: one line that says
    "internal error" (the traceback only with ``--show-traceback``) and
    ``internal_status``.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        return body(setup(argv))
    except SystemExit as exit_:
        return _status_of(exit_)
    except ArgSpecParseError as err:  # xDSL's, a BaseException: a bad -p or -t spec
        print(f"{prog}: error: {spec_error_message(err)}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except DiagnosedError as err:
        for diagnostic in err.diagnostics:
            print_diagnostic(prog, diagnostic)
        return EXIT_INPUT_ERROR
    except DiagnosticException as err:
        print_diagnostic(prog, diagnostic_of_exception(err))
        return EXIT_INPUT_ERROR
    except Exception as err:  # a bug in tilepipe, never bad input
        if "--show-traceback" in arguments:
            traceback.print_exc()
        detail = str(err).strip().splitlines()
        print(
            f"{prog}: internal error: {type(err).__name__}"
            f"{': ' + detail[0] if detail else ''} "
            "(rerun with --show-traceback to see where, and report it)",
            file=sys.stderr,
        )
        return internal_status


def usage_error(prog: str, message: str) -> NoReturn:
    """Report a bad command line as one line and status 2 (which :func:`run_driver`
    turns into :data:`EXIT_INPUT_ERROR`), without the usage block argparse prints
    first: a malformed option is one message, like any bad input."""
    print(f"{prog}: error: {message} (see --help)", file=sys.stderr)
    raise SystemExit(_ARGPARSE_USAGE_STATUS)


class DriverArgumentParser(argparse.ArgumentParser):
    """The command-line parser of every tilepipe driver: a usage error is one line
    (:func:`usage_error`).  Subcommand parsers (``add_subparsers``) are of the same
    class, so ``tilepipe compile`` keeps the promise too."""

    def error(self, message: str) -> NoReturn:
        usage_error(self.prog, message)


def one_line_usage_errors(parser: argparse.ArgumentParser) -> None:
    """:func:`usage_error` for a parser built elsewhere (xDSL's, for tile-opt)."""

    def error(message: str) -> NoReturn:
        usage_error(parser.prog, message)

    parser.error = error  # type: ignore[method-assign]


def spec_error_message(err: ArgSpecParseError) -> str:
    """xDSL's multi-line pass-pipeline error (position, text, caret, message) as one
    line: the message and the column."""
    lines = [line for line in str(err).splitlines() if line.strip()]
    position = next((line for line in lines if line.startswith("pass-pipeline:")), "")
    column = position.rsplit(":", 1)[-1]
    where = f" at column {column}" if column.isdigit() else ""
    return f"{lines[-1].strip()}{where}" if lines else "bad specification"


def print_diagnostic(prog: str, diagnostic: Diagnostic) -> None:
    # A diagnostic about no place in the input (an unreadable file) names the tool.
    print(diagnostic if diagnostic.location else f"{prog}: {diagnostic}", file=sys.stderr)


def _status_of(exit_: SystemExit) -> int:
    if exit_.code is None:
        return 0
    if exit_.code == _ARGPARSE_USAGE_STATUS:  # argparse's parser.error(): bad usage
        return EXIT_INPUT_ERROR
    if isinstance(exit_.code, int):
        return exit_.code
    print(exit_.code, file=sys.stderr)
    return EXIT_INPUT_ERROR
