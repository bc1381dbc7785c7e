"""An in-tree differential fuzzer over the tile dialect's whole surface.

* :mod:`.program` -- the kernel model (buffers, statements, loops) and its text;
* :mod:`.generate` -- seeded random *valid* kernels for sm_80, sm_90 and ascend910b;
* :mod:`.check` -- one kernel through the whole flow in-process, failures classified;
* :mod:`.minimize` -- delta debugging of a failing kernel into a reproducer;
* ``python -m tilepipe.fuzz`` -- a campaign with a summary table (docs/fuzzing.md).
"""
