"""CUDA synchronization: ``tma-copy`` (sm_90 bulk copies on mbarriers), ``async-copy``
(cp.async commit groups) and ``thread-sync`` (hazards, the fewest barriers and waits that
cover them, the sync report).

May import: ``tilepipe.dialects``, ``tilepipe.passes.analysis``, ``tilepipe.passes.memory``
(to see which buffers share bytes), diagnostics and targets.
"""
