"""The sync report: every sync point ``thread-sync`` inserted and what it covers.

The criterion (docs/sync.md) is that the sync points equal the minimum that covers
the dependence edges, no more and no fewer; the report makes that checkable: each
point lists the hazards it separates (ops, buffer, iteration distance), and the
totals split barriers into the steady state (inside loops) and prologue/epilogue.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from xdsl.ir import Operation

from tilepipe.core.diagnostics import op_location

from tilepipe.passes.cuda.hazards import Hazard, HazardAnalysis
from tilepipe.passes.analysis.symbolic_index import enclosing_loops


@dataclass
class SyncPoint:
    kind: str  # "barrier" | "wait_group" | "fence_proxy_async"
    anchor: Operation  # the sync op is inserted right before this op
    hazards: list[Hazard]
    count: int | None = None
    barrier_id: int | None = None
    threads: int | None = None

    @property
    def in_loop(self) -> bool:
        return bool(enclosing_loops(self.anchor)) or self.anchor.name == "scf.yield"

    def describe(self) -> str:
        if self.kind == "wait_group":
            head = f"wait_group {self.count}"
        elif self.kind == "fence_proxy_async":
            head = "fence_proxy_async"
        elif self.threads is not None:
            head = f"barrier id {self.barrier_id}, {self.threads} threads"
        else:
            head = "barrier"
        where = "steady state" if self.in_loop else "prologue/epilogue"
        location = op_location(self.anchor)
        return f"{head} before '{self.anchor.name}' at {location} ({where})"

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "before": self.anchor.name,
            "location": str(op_location(self.anchor)),
            "in_loop": self.in_loop,
            "pending": self.count,
            "barrier_id": self.barrier_id,
            "threads": self.threads,
            "covers": [h.describe() for h in self.hazards],
            "covers_distinct": _distinct(self.hazards),
        }


def _distinct(hazards: list[Hazard]) -> dict[str, int]:
    """Hazard descriptions with multiplicities (unrolled copies read alike)."""
    counts: dict[str, int] = {}
    for hazard in hazards:
        description = hazard.describe()
        counts[description] = counts.get(description, 0) + 1
    return counts


@dataclass
class SyncReport:
    function: str
    analysis: HazardAnalysis
    hazards: list[Hazard]
    exact: bool
    points: list[SyncPoint] = field(default_factory=list)

    def totals(self) -> dict[str, object]:
        barriers = [p for p in self.points if p.kind == "barrier"]
        waits = [p for p in self.points if p.kind == "wait_group"]
        return {
            "hazards": len(self.hazards),
            "barriers_in_steady_state": sum(p.in_loop for p in barriers),
            "barriers_in_prologue_epilogue": sum(not p.in_loop for p in barriers),
            "waits": len(waits),
            "wait_counts": [p.count for p in waits],
            "proxy_fences": sum(p.kind == "fence_proxy_async" for p in self.points),
            "queries": self.analysis.queries,
            "z3_queries": self.analysis.solver_calls,
            "cache_hits": self.analysis.cache_hits,
            "optimal_cover": self.exact,
        }

    def to_text(self) -> str:
        lines = [f"sync report for @{self.function}:"]
        for point in self.points:
            lines.append(f"  {point.describe()}")
            for description, count in _distinct(point.hazards).items():
                times = f" (x{count})" if count > 1 else ""
                lines.append(f"    covers {description}{times}")
        totals = self.totals()
        lines.append(
            "  totals: {barriers_in_steady_state} barrier(s) in the steady state, "
            "{barriers_in_prologue_epilogue} in prologue/epilogue, {waits} wait(s) "
            "{wait_counts}, {hazards} hazard(s); {queries} queries ({z3_queries} by Z3), "
            "{cache_hits} cache hits".format(**totals)
        )
        return "\n".join(lines)

    def to_json(self) -> str:
        return json.dumps(
            {
                "function": self.function,
                "points": [p.to_dict() for p in self.points],
                "totals": self.totals(),
            },
            indent=2,
        )
