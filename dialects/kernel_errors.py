"""The verifier error of a ``tile.*`` dialect attribute that points at another op."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException


class KernelAttributeError(VerifyException):
    """An op inside a kernel contradicts one of the kernel's attributes; ``op`` is the
    op to point at."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
