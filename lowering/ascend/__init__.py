"""The Ascend lowering: ``lower-to-ascend`` (tile level -> the ``ascend`` emission
dialect), the Ascend pass pipeline, and the AscendC printer with its syntax check.

May import: ``tilepipe.dialects``, ``tilepipe.passes``, diagnostics and targets.
"""
