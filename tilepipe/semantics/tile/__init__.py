"""The reference interpreter of the tile and scheduled levels and its happens-before
race detector: one block's machine (threads, the async copy engine, mbarriers), the
interpreter functions per dialect, and the grid runner.

May import: ``tilepipe.dialects``, ``tilepipe.semantics`` (memory, errors, numerics).
"""
