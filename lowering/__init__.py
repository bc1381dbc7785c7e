"""tilepipe's lowerings (importable as ``tilepipe.lowering``), one subpackage per target:

* ``nvvm`` -- ``lower-to-nvvm`` (tile level -> ``gpu.func`` with upstream
  ``nvgpu``/``nvvm``/``vector`` ops), the in-process hand-off to upstream MLIR and the
  ``ptxas`` check;
* ``ascend`` -- ``lower-to-ascend``, the Ascend pass pipeline and the AscendC printer.

May import the dialects, the passes, diagnostics and targets; never the semantics or
the drivers.  The two targets never import each other.
"""
