"""The per-thread interpreter of lowered CUDA kernels (``gpu.func`` with
``nvgpu``/``nvvm`` ops): warp collectives, cp.async, mbarriers, barriers, its race detector
and the shared-memory bank model.

May import: ``tilepipe.dialects``, ``tilepipe.semantics`` (memory, errors, numerics).
"""
