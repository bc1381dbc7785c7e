"""MLIR-style diagnostics attached to ops: what passes and verifiers raise or emit.

    raise op_error(loop, "two statements have the same order (1)")
    emit_warning(barrier, "barrier hoisted out of a non-uniform condition ...")

The drivers print them as ``file:line:col: error: 'pipeline.for' op ...``
(:mod:`tilepipe.drivers.command_line`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, PassFailedException

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


class _Collectors(threading.local):
    """Each thread's stack of collectors: a compile in another thread reports to its own."""

    def __init__(self) -> None:
        self.stack: list[DiagnosticCollector] = []


_collectors = _Collectors()


@contextmanager
def collect_diagnostics() -> Iterator[DiagnosticCollector]:
    collector = DiagnosticCollector()
    _collectors.stack.append(collector)
    try:
        yield collector
    finally:
        _collectors.stack.pop()


def _emit(diagnostic: Diagnostic) -> None:
    if _collectors.stack:
        _collectors.stack[-1].diagnostics.append(diagnostic)
    else:  # outside tile-opt (library use): still tell the user
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


