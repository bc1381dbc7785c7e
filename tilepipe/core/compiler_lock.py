"""One pipeline of tilepipe's passes at a time per process: the lock they run under.

Two pieces of process-wide state make tilepipe's passes unsafe to run in two threads
at once, even on different modules:

* xDSL's ``ImplicitBuilder`` (the NVVM lowering builds with it) replaces
  ``Operation.__post_init__`` for the whole process on entry and restores it on exit,
  tracking only the calling thread's nesting: with two threads inside, each new op is
  inserted twice ("already attached to a block") or, after one thread leaves, not at
  all.
* The hazard analyses build their z3 terms in z3's main context, which is not
  thread-safe; the memory of answered queries and the position caches of the analyses
  are process-wide too.

The passes are pure Python and hold the GIL, so running their pipelines one at a time
costs a threaded host no throughput; the upstream MLIR part of a compile (a context of
its own per call) runs outside the lock.  The drivers, the API and every pipeline built
by :func:`tilepipe.core.registry.pass_pipeline` take the lock (docs/api.md, "Threads").
"""

from __future__ import annotations

import threading

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

COMPILER_LOCK = threading.RLock()
"""Held while tilepipe's passes run; re-entrant, so a pipeline may run a pipeline."""


class SerializedPassPipeline(PassPipeline):
    """A ``PassPipeline`` that runs under :data:`COMPILER_LOCK`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with COMPILER_LOCK:
            super().apply(ctx, op)


def serialized(pipeline: PassPipeline) -> SerializedPassPipeline:
    return SerializedPassPipeline(pipeline.passes, pipeline.callback)


__all__ = ["COMPILER_LOCK", "SerializedPassPipeline", "serialized"]
