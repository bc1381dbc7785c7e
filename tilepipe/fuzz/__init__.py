"""Fuzzing tilepipe: generators of inputs and checkers of what the tools do with them.

``malformed``: malformed inputs for the four drivers (tile-opt, tile-run, tilepipe
compile, the AscendC printer) and the check that each keeps its promise on bad input.
"""
