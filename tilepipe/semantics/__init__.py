"""Executable semantics: the interpreter, the race detector and the equivalence harness.

* :func:`run_tile_kernel` runs a kernel over its grid and returns its memref arguments;
* :func:`find_races` runs it with the happens-before race detector;
* :func:`execute` does both and returns a :class:`KernelRun`.

Bad kernels and inputs raise :class:`KernelError` (an MLIR-style located message).
See ``docs/semantics.md``.

Split by level and target: ``tile`` (the interpreter of the tile and scheduled levels
and its race detector), ``nvvm`` (lowered CUDA kernels, thread by thread), ``ascend``
(the pipe simulator); ``memory``, ``errors``, ``numerics``, ``compare`` and
``lane_engine`` are shared.  The semantics sit above the lowerings (they run lowered
kernels, and compile a tile-level Ascend kernel for its race check) and below the
drivers.
"""

from tilepipe.semantics.errors import KernelError
from tilepipe.semantics.tile.races import AccessSite, Race
from tilepipe.semantics.tile.grid_runner import (
    KernelRun,
    RaceError,
    argument_names,
    execute,
    find_races,
    load_module,
    run_tile_kernel,
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
    "run_tile_kernel",
    "select_kernel",
]
