"""Errors of the executable semantics: bad kernels and bad inputs, located at an op."""

from __future__ import annotations

from xdsl.ir import Operation

from tilepipe.core.diagnostics import DiagnosedError, Diagnostic, op_diagnostic


class KernelError(DiagnosedError):
    """A kernel did something undefined while running (reads uninitialized memory,
    indexes out of bounds, commits a token twice, waits on an mbarrier that was never
    initialized, ...), or was given unusable inputs.

    ``str(err)`` is an MLIR-style diagnostic: ``file:line:col: error: 'op' op ...``.
    """

    def __init__(self, op: Operation | None, message: str):
        self.op = op
        self.diagnostic = (
            op_diagnostic(op, "error", message)
            if op is not None
            else Diagnostic("error", message)
        )
        Exception.__init__(self, str(self.diagnostic))

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [self.diagnostic]

    @classmethod
    def at(cls, diagnostic: Diagnostic) -> KernelError:
        """An error from an existing diagnostic (parse or verification failure)."""
        error = cls(None, diagnostic.message)
        error.diagnostic = diagnostic
        error.args = (str(diagnostic),)
        return error
