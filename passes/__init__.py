"""tilepipe's analyses and passes (importable as ``tilepipe.passes``), grouped by what
they serve:

* ``analysis`` -- shared analyses and IR utilities (access regions and dependences,
  symbolic and concrete indices, program points, the stage/order schedule);
* ``pipelining`` -- ``pipeline-validate``, ``pipeline-planning``,
  ``inject-software-pipeline`` (versions, multi-buffering, the modulo schedule);
* ``memory`` -- liveness and ``merge-shared-memory`` (the arena);
* ``cuda`` -- ``tma-copy``, ``async-copy``, ``thread-sync`` (hazards and sync placement);
* ``ascend`` -- the ``ascend-*`` passes (multi-buffer ownership, cores and pipes,
  InsertSync, the flag budget).

Imports flow one way: dialects -> ``analysis`` -> ``pipelining``/``memory`` ->
``cuda``/``ascend``; the two targets never import each other
(``test/python/tools/test_import_graph.py`` checks it).  Passes are looked up by name
through ``tilepipe.core.registry``.
"""
