"""MLIR-style diagnostics for tilepipe.

Passes report problems on the op they concern::

    raise op_error(loop, "two statements have the same order (1)")
    emit_warning(barrier, "barrier hoisted out of a non-uniform condition ...")

``tile-opt`` prints them as ``file:line:col: error: 'pipeline.for' op ...`` (the op's
location comes from the parser) and, under ``--verify-diagnostics``, matches them
against ``// expected-error @+1 {{...}}`` annotations exactly as ``mlir-opt`` does.
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import NoReturn
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    PassFailedException,
)

SEVERITIES = ("error", "warning", "remark", "note")


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    severity: str
    message: str
    location: SourceLocation | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.severity}: {self.message}"


def op_location(op: Operation | None) -> SourceLocation | None:
    """The source location of ``op``, or of its closest located ancestor (ops made
    by passes have no location of their own)."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
        op = op.parent_op()
    return None


def op_diagnostic(op: Operation, severity: str, message: str) -> Diagnostic:
    return Diagnostic(severity, f"'{op.name}' op {message}", op_location(op))


class OpDiagnosticError(PassFailedException):
    """A pass or verifier failure attached to an op."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def op_error(op: Operation, message: str) -> OpDiagnosticError:
    """An error on ``op``; ``raise`` the result."""
    return OpDiagnosticError(op_diagnostic(op, "error", message))


class DiagnosedError(Exception):
    """Bad input (or a failing stage) told as diagnostics; a driver prints them and
    exits with :data:`EXIT_INPUT_ERROR`."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        super().__init__("\n".join(str(d) for d in diagnostics))
        self._diagnostics = list(diagnostics)

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self._diagnostics


class InputError(DiagnosedError):
    """Bad input found before any pass ran (reading, parsing or verification)."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__([diagnostic])
        self.diagnostic = diagnostic


# -- non-fatal diagnostics (warnings, remarks) go to the innermost collector


@dataclass
class DiagnosticCollector:
    diagnostics: list[Diagnostic] = field(default_factory=list)


_collectors: list[DiagnosticCollector] = []


@contextmanager
def collect_diagnostics() -> Iterator[DiagnosticCollector]:
    collector = DiagnosticCollector()
    _collectors.append(collector)
    try:
        yield collector
    finally:
        _collectors.pop()


def _emit(diagnostic: Diagnostic) -> None:
    if _collectors:
        _collectors[-1].diagnostics.append(diagnostic)
    else:  # outside tile-opt (library use): still tell the user
        import sys

        print(diagnostic, file=sys.stderr)


def emit_warning(op: Operation, message: str) -> None:
    _emit(op_diagnostic(op, "warning", message))


def emit_remark(op: Operation, message: str) -> None:
    _emit(op_diagnostic(op, "remark", message))


# -- verification with op-attached errors


def _verifier_message(err: DiagnosticException) -> str:
    # xDSL re-raises the verifier's own exception (the IR dump goes to its notes).
    text = str(err).strip()
    return text if text else type(err).__name__


def verify_module(module: ModuleOp) -> Diagnostic | None:
    """Verify every op; return the first failure as a located diagnostic."""
    from tilepipe.dialects.kernel_attrs import KernelAttributeError, verify_dialect_attributes

    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
            verify_dialect_attributes(op)
        except OpDiagnosticError as err:
            return err.diagnostic
        except KernelAttributeError as err:
            return op_diagnostic(err.op, "error", _verifier_message(err))
        except DiagnosticException as err:
            return op_diagnostic(op, "error", _verifier_message(err))
    return None


def diagnostic_of_exception(err: DiagnosticException) -> Diagnostic:
    if isinstance(err, OpDiagnosticError):
        return err.diagnostic
    return Diagnostic("error", _verifier_message(err))


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
