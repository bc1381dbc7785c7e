"""The Ascend passes: prepare and materialize multi-buffering, resolve core and pipe,
InsertSync (sync sites, edges, flag rings) and the flag budget.

May import: ``tilepipe.dialects``, ``tilepipe.passes.analysis`` and
``tilepipe.passes.pipelining``, diagnostics and targets.
"""
