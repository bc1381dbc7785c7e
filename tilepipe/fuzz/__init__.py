"""Fuzzing tilepipe: generators of inputs and checkers of what the tools do with them.

* :mod:`.program` -- the kernel model (buffers, statements, loops) and its text;
* :mod:`.generate` -- seeded random *valid* kernels for sm_80, sm_90, sm_90a and ascend910b;
* :mod:`.check` -- one kernel through the whole flow in-process, failures classified;
* :mod:`.minimize` -- delta debugging of a failing kernel into a reproducer;
* :mod:`.malformed` -- malformed inputs for the four drivers (tile-opt, tile-run,
  tilepipe compile, the AscendC printer) and the check that each keeps its promise on
  bad input;
* ``python -m tilepipe.fuzz`` -- a campaign with a summary table (docs/fuzzing.md).

May import anything of tilepipe: the fuzzer drives the whole compiler.
"""
