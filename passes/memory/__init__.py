"""On-chip memory planning: buffer liveness, ``merge-shared-memory`` (one arena per
memory, best-fit packing by liveness, alignment, the budget check), its reports, and
reading the arena back (which buffers share bytes).

May import: ``tilepipe.dialects``, ``tilepipe.passes.analysis``, diagnostics and targets.
"""
