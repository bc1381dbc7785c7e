"""The CUDA lowering: ``lower-to-nvvm`` (tile level -> ``gpu.func`` with upstream
``nvgpu``/``nvvm``/``vector`` ops), the in-process hand-off to upstream MLIR (NVVM -> LLVM
-> PTX) and the ``ptxas`` check.

May import: ``tilepipe.dialects``, ``tilepipe.passes``, diagnostics and targets.
"""
