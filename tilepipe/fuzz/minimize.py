"""Delta debugging of a failing kernel on the program model.

``minimize(program, fails)`` repeats, until nothing more helps or the time budget ends,
one-step reductions, keeping each after which ``fails`` still holds (for a finding,
:func:`still_fails`: the same failure class persists): drop a top-level item
(statement or whole loop), drop a statement of a loop, turn stage/order arrays into
``num_stages``, lower ``num_stages``, lb -> 0, step -> 1, fewer and smaller trip
counts, one block without block_id, 32 threads, and halve each dimension symbol
(every buffer of that extent shrinks at once); for real shapes, one size case, static
types, no grid expression, static loop bounds, no divisibility facts, whole tiles.  Buffers nothing uses any more
disappear from the text by themselves.  A reduction that makes the kernel invalid
changes the class (``generator`` or ``rejected-valid``) and is dropped, so validity
needs no separate check.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from tilepipe.fuzz.check import Options, Outcome, check_program, cuda_pipeline
from tilepipe.fuzz.generate import generate
from tilepipe.fuzz.program import ASCEND_TARGET, TRIP_COUNT_ARG, Loop, Program


# Classes only a run of the compiled kernel shows.
EXECUTION_CLASSES = ("race", "miscompile", "deadlock", "flag-protocol", "generator")


def _ranks(values: list[int]) -> list[int]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0] * len(values)
    for rank, i in enumerate(order):
        ranks[i] = rank
    return ranks


def _without_stmt(loop: Loop, index: int) -> None:
    del loop.body[index]
    if loop.stage is not None:
        del loop.stage[index]
        del loop.order[index]
        loop.order = _ranks(loop.order)


def _reductions(p: Program) -> Iterator[Callable[[Program], None]]:
    """One-step reductions of ``p``, largest first; each edits a copy in place."""
    for i in reversed(range(len(p.items))):
        yield lambda q, i=i: q.items.__delitem__(i)
    for i, item in enumerate(p.items):
        if not isinstance(item, Loop):
            continue
        for j in reversed(range(len(item.body))):
            yield lambda q, i=i, j=j: _without_stmt(q.items[i], j)
        if item.stage is not None:
            def plain(q, i=i):
                loop = q.items[i]
                loop.num_stages, loop.stage, loop.order = loop.depth, None, None
            yield plain
        if item.num_stages and item.num_stages > 1:
            yield lambda q, i=i: setattr(q.items[i], "num_stages", q.items[i].num_stages - 1)
        if item.lb:
            yield lambda q, i=i: setattr(q.items[i], "lb", 0)
        if item.step > 1:
            yield lambda q, i=i: setattr(q.items[i], "step", 1)
        if item.from_dim:
            yield lambda q, i=i: setattr(q.items[i], "from_dim", False)
        elif item.trips:
            for smaller in range(item.trips):
                yield lambda q, i=i, t=smaller: setattr(q.items[i], "trips", t)
    if p.is_dynamic and len(p.dynamic_trips) > 1:
        for n in p.dynamic_trips:
            yield lambda q, n=n: setattr(q, "dynamic_trips", (n,))
    yield from _shape_reductions(p)
    if p.grid > 1:
        yield lambda q: setattr(q, "grid", 1)
    if p.use_block_id and p.grid == 1:
        yield lambda q: setattr(q, "use_block_id", False)
    if p.threads and p.threads > 32:
        yield lambda q: setattr(q, "threads", 32)
    for symbol, value in p.dims.items():
        if value > 8:
            yield lambda q, s=symbol: q.dims.__setitem__(s, q.dims[s] // 2)


def _shape_reductions(p: Program) -> Iterator[Callable[[Program], None]]:
    """Real shapes back towards whole tiles, one feature at a time."""
    if len(p.shape_cases) > 1:
        for i in range(len(p.shape_cases)):
            yield lambda q, i=i: setattr(q, "shape_cases", (q.shape_cases[i],))
    if p.grid_from_shape:
        yield lambda q: setattr(q, "grid_from_shape", False)
    if p.divisibility:
        yield lambda q: setattr(q, "divisibility", {})
    if p.dynamic:  # the first case written into the types
        def static(q):
            q.dynamic, q.grid_from_shape, q.shape_cases = False, False, q.shape_cases[:1]
        yield static
    if p.shape_cases:  # whole tiles: static types, nothing to size
        def whole(q):
            q.dynamic, q.shape_cases = False, ()
        yield whole


def _drop_empty_loops(p: Program) -> None:
    p.items = [i for i in p.items if not (isinstance(i, Loop) and not i.body)]


def minimize(
    program: Program, fails: Callable[[Program], bool], budget_s: float = 60.0
) -> Program:
    """The smallest variant of ``program`` found on which ``fails`` still holds
    (first-improvement descent over :func:`_reductions`, within ``budget_s``)."""
    deadline = time.monotonic() + budget_s
    best = program.copy()
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for reduce in _reductions(best):
            if time.monotonic() >= deadline:
                break
            candidate = best.copy()
            reduce(candidate)
            _drop_empty_loops(candidate)
            if candidate.statements() and fails(candidate):
                best = candidate
                progress = True
                break  # the reductions of the smaller program
    return best


def still_fails(cls: str, options: Options | None = None) -> Callable[[Program], bool]:
    """The predicate "the kernel still fails with ``cls``"."""
    options = options or Options()
    # Nondeterminism shows only in some runs: give each candidate a few.
    attempts = 3 if cls == "nondeterministic" else 1

    def fails(candidate: Program) -> bool:
        if not any(cls in check_program(candidate, options).classes for _ in range(attempts)):
            return False
        # A class found before the kernel runs says nothing about validity: the
        # reduced source must still run in the interpreter (no uninitialized reads).
        return options.execute or source_runs(candidate)

    return fails


def source_runs(program: Program) -> bool:
    from tilepipe.semantics import KernelError, execute

    text = program.text()
    try:
        for case in program.cases():
            execute(text, index_args=case.index_args, shapes=case.shape_map)
    except KernelError:
        return False
    return True


def options_for(outcome: Outcome, cls: str) -> Options:
    """The sampled checks the finding needs to show again."""
    summary = next((f.summary for f in outcome.findings if f.cls == cls), "")
    return Options(
        ptx=summary.startswith("tilepipe compile") or cls == "ptxas",
        nvvm=summary.startswith(("nvvm", "lower-to-nvvm")),
        hashseed="PYTHONHASHSEED" in summary,
        syntax=cls == "syntax",
        determinism=cls == "nondeterministic" and "PYTHONHASHSEED" not in summary,
        execute=cls in EXECUTION_CLASSES or summary.startswith(("interpreter", "pipe simulator")),
    )


def minimize_outcome(outcome: Outcome, cls: str, budget_s: float = 60.0) -> tuple[Program, Outcome]:
    """Minimize the campaign kernel of ``outcome`` (regenerated from its seed)."""
    options = options_for(outcome, cls)
    program = minimize(generate(outcome.seed, outcome.target), still_fails(cls, options), budget_s)
    return program, check_program(program, options)


def check_command(program: Program, cls: str, summary: str = "", path: str = "K.mlir") -> str:
    """The shell command that shows the failure (at the case the summary names)."""
    cases = program.cases()
    named = [c for c in cases if summary.startswith(f"{c}:")]
    if named:
        cases = named[:1]
    trips = [c.trips for c in cases if c.trips is not None]
    if program.target == ASCEND_TARGET or cls not in ("race", "miscompile", "deadlock", "roundtrip", "rejected-valid", "internal-error", "nondeterministic"):
        # A reproducer's "// case:" lines carry the sizes; --trips would drop them.
        sized = any(c.shapes for c in cases)
        listed = f" --trips {','.join(map(str, trips))}" if trips and not sized else ""
        return f"python -m tilepipe.fuzz.check {path}{listed}"
    opt = f'tile-opt {path} -p "{cuda_pipeline(program.target)}"'
    if cls == "roundtrip":
        return f"{opt} | tile-opt"
    if cls == "nondeterministic":
        return f"for s in 1 2 3 4 5; do PYTHONHASHSEED=$s {opt} | md5sum; done"
    if cls in ("rejected-valid", "internal-error"):
        return opt
    run = "".join(f" --index-arg {TRIP_COUNT_ARG}={n}" for n in trips[:1])
    run += "".join(f" --shape {name}={'x'.join(map(str, shape))}" for name, shape in cases[0].shapes)
    return f"{opt} -o out.mlir && tile-run out.mlir --check-races --compare-with {path} --quiet{run}"


def reproducer_text(program: Program, outcome: Outcome, cls: str) -> str:
    """The kernel with a header comment: class, what happened, seed and commands."""
    summary = next((f.summary for f in outcome.findings if f.cls == cls), "")
    trips = [n for n in program.trip_counts() if n is not None]
    cases = [f"// case: {c.header()}" for c in program.cases() if c.header()]
    header = [
        f"// tilepipe fuzz finding: {cls}",
        f"// {summary}",
        f"// kernel: python -m tilepipe.fuzz --seed {program.seed} --count 1 --targets {program.target}"
        f" (minimized; {program.kind})",
        f"// trip counts checked: {', '.join(map(str, trips)) if trips else 'static'}",
        f"// check: {check_command(program, cls, summary)}",
        *cases,  # python -m tilepipe.fuzz.check runs each of them
    ]
    return "\n".join(header) + "\n" + program.text()
