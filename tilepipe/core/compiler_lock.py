"""One pipeline of tilepipe's passes at a time per process, and xDSL's implicit
builders made safe for threads.

Two pieces of process-wide state make compiling in two threads at once unsafe:

* xDSL's ``ImplicitBuilder`` (the NVVM lowering builds with it, and so does xDSL's
  parser, for every op with an implicit terminator: ``scf.for``, ``gpu.module``, ...)
  replaces ``Operation.__post_init__`` for the whole process when a thread enters its
  first one and puts back what it found when it leaves.  Two threads interleaving
  leave the wrapper of the first one installed for good, and from then on every op
  built under an implicit builder is inserted twice ("Can't add to a block an
  operation already attached to a block").  :func:`thread_safe_implicit_builders`
  installs the wrapper once, at import, and makes entering and leaving keep it: the
  wrapper inserts an op only into the calling thread's own builder (xDSL keeps that
  per thread), so this is what xDSL does for one thread, for every thread.
* The hazard analyses build their z3 terms in z3's main context, which is not
  thread-safe; the memory of answered queries and the position caches of the analyses
  are process-wide too.  So tilepipe's passes run under :data:`COMPILER_LOCK`.

The passes are pure Python and hold the GIL, so running their pipelines one at a time
costs a threaded host no throughput; parsing, printing and the upstream MLIR part of a
compile (a context of its own per call) run outside the lock.  The drivers, the API
and every pipeline built by :func:`tilepipe.core.registry.pass_pipeline` take the lock
(docs/api.md, "Threads and processes").
"""

from __future__ import annotations

import threading

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

def thread_safe_implicit_builders() -> bool:
    """Keep one ``Operation.__post_init__`` that inserts into the calling thread's
    implicit builder, instead of one installed and removed by each outermost
    ``ImplicitBuilder``.  Idempotent; False where xDSL's builder module does not have
    the hooks this relies on (then only the lock protects the passes)."""
    import xdsl.builder as builder
    from xdsl.ir import Operation

    if getattr(builder, "_tilepipe_thread_safe", False):
        return True
    insert = getattr(builder, "_op_init_callback", None)
    if insert is None or not hasattr(builder, "_override_operation_post_init"):
        return False
    original = Operation.__post_init__

    def post_init(self: Operation) -> None:
        original(self)
        insert(self)

    Operation.__post_init__ = post_init  # type: ignore[method-assign]
    # ImplicitBuilder calls this on entering its outermost builder and puts back what
    # it returns on leaving: the same function, whatever the threads interleave.
    builder._override_operation_post_init = lambda: Operation.__post_init__
    builder._tilepipe_thread_safe = True
    return True


thread_safe_implicit_builders()

COMPILER_LOCK = threading.RLock()
"""Held while tilepipe's passes run; re-entrant, so a pipeline may run a pipeline."""


class SerializedPassPipeline(PassPipeline):
    """A ``PassPipeline`` that runs under :data:`COMPILER_LOCK`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with COMPILER_LOCK:
            super().apply(ctx, op)


def serialized(pipeline: PassPipeline) -> SerializedPassPipeline:
    return SerializedPassPipeline(pipeline.passes, pipeline.callback)


__all__ = ["COMPILER_LOCK", "SerializedPassPipeline", "serialized", "thread_safe_implicit_builders"]
