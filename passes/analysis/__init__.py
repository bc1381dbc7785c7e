"""Analyses shared by every pass: access regions and dependences,
symbolic (Z3) and concrete index expressions, program points, the stage/order
schedule of a loop.  (The IR-building helpers they share live in ``passes/rewrite``.)

May import: ``tilepipe.dialects``, ``tilepipe.core.diagnostics``, ``tilepipe.core.targets``.  Nothing
here imports a pass, a lowering or a driver.
"""
