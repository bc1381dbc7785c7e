"""Which loops the path from an access to a later one runs whole iterations of.

A wait can land a copy in an iteration other than the copy's: when the reader follows
a loop around the copy (a steady-state copy read by the epilogue), every path from the
copy to the reader runs the loop's remaining iterations whole, so a wait anywhere in
the loop's body runs in between; likewise for the iterations before the reader's of a
loop around the reader only (a prologue copy read in the steady state).  Such a loop
counts only when the two accesses can conflict with at least one whole iteration in
between: iterations after the copy's (:meth:`AccessRelations.iterations_from_end`),
or before the reader's (:meth:`AccessRelations.iterations_from_start`).  The points
of those loops' bodies are what ``covering_points`` adds for them.

Both kinds of waits search those loops, each with its own question, because they land
copies differently:

* a ``cp.async`` ``wait_group N`` (``sync_placement``) lands every group but the N
  newest, and groups are only ever added along the path, so only the wait's *last*
  run before the reader matters: in a loop the path leaves, the loop's last
  iteration, the fewest iterations after the copy's at which the two can conflict;
* an mbarrier wait (``bulk_coverage``) lands only the copy on its slot, whichever
  iteration runs it, so *some* run between the two must wait on the copy's slot: the
  next iterations are searched one by one (as many as the ring has slots), each under
  its own bounds and guards.
"""

from __future__ import annotations

from xdsl.ir import Operation

from tilepipe.passes.cuda.access_relations import AccessPair, AccessRelations
from tilepipe.passes.analysis.symbolic_index import enclosing_loops


def loops_run_whole(relations: AccessRelations, pair: AccessPair) -> set[Operation]:
    """The loops around only one of the pair's accesses of which every path between
    the two runs at least one whole iteration where they can still conflict."""
    loops_source = enclosing_loops(pair.source.op)
    loops_target = enclosing_loops(pair.target.op)
    full = {
        loop for loop in loops_source
        if loop not in loops_target and relations.iterations_from_end(pair, loop) >= 1
    }
    full |= {
        loop for loop in loops_target
        if loop not in loops_source and relations.iterations_from_start(pair, loop) >= 1
    }
    return full
