"""The Ascend pipe simulator: each core's scalar unit issues instructions to its
pipes; flags, barriers and cross-core flags order them; races, deadlocks and flags left
set are reported.  ``--check-races`` on a tile-level Ascend kernel compiles it with the
Ascend pipeline first (a tile-level Ascend kernel has no syncs yet).

May import: ``tilepipe.dialects``, ``tilepipe.passes.ascend``, ``tilepipe.lowering.ascend``
and ``tilepipe.semantics`` (memory, errors, numerics).
"""
