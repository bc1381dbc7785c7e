"""Schedule simulation of scheduled-level kernels: a greedy cycle model (docs/schedule_sim.md) run
on the real IR, its Gantt chart, and what ``tilepipe tune`` ranks configurations by.

:func:`estimate_cycles` runs one block of a kernel in the interpreter, records the trace of
its op instances with the orderings the race detector knows (:mod:`.trace`), and
times it on the target's units (:mod:`.model`, on the lane engine shared with the
Ascend pipe simulator).  :mod:`.machine` turns one block's cycles into the kernel's on
the target's GPU (occupancy, waves over the SMs), :mod:`.calibration` fits the models'
constants to measured times.
"""

from tilepipe.schedule_sim.simulate import estimate_cycles
from tilepipe.schedule_sim.model import ScheduleReport

__all__ = ["ScheduleReport", "estimate_cycles"]
