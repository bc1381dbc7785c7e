"""Software pipelining, target-independent: ``pipeline-validate``, ``pipeline-planning``
and ``inject-software-pipeline`` (buffer versions, multi-buffering, the modulo schedule,
mbarrier ring expansion) and the pipelining report.

May import: ``tilepipe.dialects``, ``tilepipe.passes.analysis``, diagnostics and targets.
"""
