"""tilepipe's xDSL dialects (importable as ``tilepipe.dialects``): ``tile`` (tile ops
with analyzable regions), ``pipeline`` (the pipelined loop and the scheduled-level
async/sync ops), ``ascend`` (the Ascend emission level), and the subsets of upstream
``gpu``, ``nvgpu``, ``nvvm`` and ``vector`` that xDSL lacks or spells differently.

The bottom layer: may import xDSL and ``tilepipe.core.diagnostics``/``tilepipe.core.targets``,
nothing else of tilepipe.
"""
