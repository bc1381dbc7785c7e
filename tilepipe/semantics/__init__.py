"""Executable semantics: the interpreter, the race detector and the equivalence harness.

* :func:`run_kernel` runs a kernel over its grid and returns its memref arguments;
* :func:`find_races` runs it with the happens-before race detector;
* :func:`execute` does both and returns a :class:`KernelRun`.

Bad kernels and inputs raise :class:`KernelError` (an MLIR-style located message).
See ``docs/semantics.md``.
"""

from .errors import KernelError
from .races import AccessSite, Race
from .runner import (
    KernelRun,
    RaceError,
    argument_names,
    execute,
    find_races,
    load_module,
    run_kernel,
    select_kernel,
)

__all__ = [
    "AccessSite",
    "KernelError",
    "KernelRun",
    "Race",
    "RaceError",
    "argument_names",
    "execute",
    "find_races",
    "load_module",
    "run_kernel",
    "select_kernel",
]
