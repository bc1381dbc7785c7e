"""Test helpers built on the executable semantics, for every pass's tests.

* :func:`assert_equivalent` -- original and transformed kernels compute bit-identical
  outputs on the same seeded inputs, for several trip counts and seeds;
* :func:`assert_race_free` -- the happens-before race detector finds nothing;
* :func:`sync_mutants` / :func:`assert_every_sync_needed` -- deleting any one
  synchronization op (barrier, wait_group, mbarrier wait or release, commit_group) makes the
  race detector fire, i.e. no inserted sync is superfluous;
* :func:`loosened_waits` -- letting any one ``wait_group`` leave one more group in
  flight makes it fire too, i.e. every wait count is as large as it can be.

Kernels are given as text or as ``ModuleOp``.  Trip counts reach a kernel in one of two
ways: the kernel takes an ``index`` argument named ``n`` (the trip count is passed as
``index_args={"n": trip_count}``), or the caller passes ``make_variant(kernel,
trip_count)`` returning the kernel specialized to that trip count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation

from tilepipe.core.diagnostics import op_location
from tilepipe.dialects import pipeline_sync as sync
from tilepipe.semantics import KernelError, find_races, load_module, run_tile_kernel
from tilepipe.semantics.compare import first_difference

Kernel = ModuleOp | str
TRIP_COUNT_ARG = "n"
SYNC_OPS = (
    sync.BarrierOp,
    sync.FenceProxyAsyncOp,
    sync.WaitGroupOp,
    sync.MBarrierWaitParityOp,
    sync.MBarrierTestWaitOp,
    sync.MBarrierArriveOp,  # a warp-specialized ring's release of a slot
    sync.CommitGroupOp,
)


def _variants(
    kernel: Kernel,
    trip_counts: Iterable[int] | None,
    make_variant: Callable[[Kernel, int], Kernel] | None,
    index_args: Mapping[str, int] | None,
) -> Iterator[tuple[str, Kernel, dict[str, int]]]:
    """(label, kernel, index args) for every trip count asked for."""
    base_args = dict(index_args or {})
    if trip_counts is None:
        yield "", kernel, base_args
        return
    for trip_count in trip_counts:
        label = f"trip count {trip_count}"
        if make_variant is not None:
            yield label, make_variant(kernel, trip_count), base_args
        else:
            yield label, kernel, {**base_args, TRIP_COUNT_ARG: trip_count}


def assert_equivalent(
    original: Kernel,
    transformed: Kernel,
    *,
    trip_counts: Iterable[int] | None = None,
    seeds: Sequence[int] = (0,),
    func_name: str | None = None,
    make_variant: Callable[[Kernel, int], Kernel] | None = None,
    index_args: Mapping[str, int] | None = None,
    blocks: Iterable[Sequence[int]] | None = None,
) -> None:
    """Both kernels give bit-identical memref arguments for every trip count and
    seed; on failure the message names the trip count, the seed and the first
    differing element."""
    trip_counts = None if trip_counts is None else list(trip_counts)
    blocks = None if blocks is None else [tuple(b) for b in blocks]
    pairs = zip(
        _variants(original, trip_counts, make_variant, index_args),
        _variants(transformed, trip_counts, make_variant, index_args),
    )
    for (label, before, args), (_, after, _) in pairs:
        for seed in seeds:
            options = dict(seed=seed, index_args=args, blocks=blocks)
            expected = run_tile_kernel(before, func_name, **options)
            actual = run_tile_kernel(after, func_name, **options)
            difference = first_difference(expected, actual)
            if difference is not None:
                where = ", ".join(filter(None, (label, f"seed {seed}")))
                raise AssertionError(f"{where}: {difference}")


def assert_race_free(
    module: Kernel,
    *,
    func_name: str | None = None,
    index_args: Mapping[str, int] | None = None,
    trip_counts: Iterable[int] | None = None,
    make_variant: Callable[[Kernel, int], Kernel] | None = None,
    blocks: Iterable[Sequence[int]] | None = None,
) -> None:
    """The race detector reports nothing (for each trip count, when given)."""
    blocks = None if blocks is None else [tuple(b) for b in blocks]
    for label, kernel, args in _variants(module, trip_counts, make_variant, index_args):
        races = find_races(kernel, func_name, index_args=args, blocks=blocks)
        if races:
            where = f" ({label})" if label else ""
            raise AssertionError(
                f"{len(races)} race(s){where}:\n" + "\n".join(str(r) for r in races)
            )


def _describe(op: Operation) -> str:
    location = op_location(op)
    return f"'{op.name}' at {location}" if location else f"'{op.name}'"


def sync_mutants(module: Kernel) -> Iterator[tuple[str, ModuleOp]]:
    """For every sync op (barrier, proxy fence, wait_group, mbarrier wait,
    commit_group): a copy of the module without it, described as
    ``"without 'pipeline.barrier' at f:l:c"``."""
    module = load_module(module)
    positions = [i for i, op in enumerate(module.walk()) if isinstance(op, SYNC_OPS)]
    for position in positions:
        mutant = module.clone()
        victim = list(mutant.walk())[position]
        description = f"without {_describe(victim)}"
        victim.detach()
        victim.erase()
        yield description, mutant


def loosened_waits(module: Kernel) -> Iterator[tuple[str, ModuleOp]]:
    """For every ``wait_group N``: a copy of the module whose wait is ``N + 1``,
    described as ``"wait_group N -> N+1 before 'op' at f:l:c"``.  A count is tight
    when every such mutant races: one more group in flight leaves a copy pending."""
    module = load_module(module)
    positions = [i for i, op in enumerate(module.walk()) if isinstance(op, sync.WaitGroupOp)]
    for position in positions:
        mutant = module.clone()
        wait = list(mutant.walk())[position]
        count = wait.pending_groups
        wait.properties["pending"] = IntegerAttr(count + 1, i64)
        # A wait is never a terminator: an op follows it.
        yield f"wait_group {count} -> {count + 1} before {_describe(wait.next_op)}", mutant


def assert_every_sync_needed(
    module: Kernel,
    *,
    func_name: str | None = None,
    index_args: Mapping[str, int] | None = None,
    blocks: Iterable[Sequence[int]] | None = None,
    trip_counts: Iterable[int] | None = None,
) -> None:
    """Deleting any single sync op makes the race detector fire (or the kernel fail,
    e.g. deadlock): every sync is justified by a hazard -- at one of ``trip_counts``
    when given (a sync in a guarded prologue slot may matter at one trip count only)."""
    blocks = None if blocks is None else [tuple(b) for b in blocks]
    trip_counts = None if trip_counts is None else list(trip_counts)
    # A mutant failing to run proves its sync needed only if the kernel itself runs
    # (a trip count out of the kernel's bounds would make every sync look needed).
    for _, kernel, args in _variants(module, trip_counts, None, index_args):
        find_races(kernel, func_name, index_args=args, blocks=blocks)
    superfluous: list[str] = []
    for description, mutant in sync_mutants(module):
        if not any(
            _fails(kernel, func_name, args, blocks)
            for _, kernel, args in _variants(mutant, trip_counts, None, index_args)
        ):
            superfluous.append(description)
    if superfluous:
        raise AssertionError(
            "deleting these sync ops leaves the kernel race free (unneeded syncs):\n  "
            + "\n  ".join(superfluous)
        )


def _fails(kernel: Kernel, func_name: str | None, index_args, blocks) -> bool:
    """The race detector reports, or the kernel cannot run (e.g. deadlock)."""
    try:
        return bool(find_races(kernel, func_name, index_args=index_args, blocks=blocks))
    except KernelError:
        return True
