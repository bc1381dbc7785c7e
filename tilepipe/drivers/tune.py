"""``tilepipe tune``: rank pipeline configurations at compile time, on any machine.

Every configuration (a tile shape times a ``num_stages``) is compiled and kept only if
it fits every budget of the target (:mod:`tilepipe.drivers.tune_evaluate`).  The tile
shapes are the kernel files given, and within a kernel that declares candidates
(``tile.tune``, :mod:`tilepipe.dialects.tile_params`) every combination of them, each
instantiated by ``instantiate-tile-params`` (a combination the kernel cannot take --
a size that does not divide its extent, shapes that no longer fit -- is rejected with
the reason).  The budgets:

* CUDA: the shared-memory arena ``merge-shared-memory`` packs (its budget check), and
  the registers ptxas reports (at most 255 per thread, no spills) unless ``--no-ptxas``;
* Ascend: the on-chip capacities, the event ids per hard event and the lock pool
  (``ascend-flag-budget``'s plan).

The configurations run on an executor (this machine's process pool, or a Ray
cluster: :mod:`tilepipe.drivers.tune_executors`); those the tuning cache holds
(:mod:`tilepipe.drivers.tune_cache`) are not compiled again.  The survivors are
ranked by the machine model's kernel time (:mod:`tilepipe.schedule_sim.machine`: one
block's simulated cycles, the blocks in waves over the target's SMs at the occupancy
the block's shared memory, registers and threads allow), then cycles per iteration,
then fewer stages.  The rates are the target record's public peak figures, or those
a calibration file fits (:mod:`tilepipe.schedule_sim.calibration`).  The table lists
every configuration with the reason it was rejected, and the pick's tile-level kernel
(its ``num_stages`` set) is written out.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from tilepipe.core.targets import AscendTarget, CudaTarget, get_target
from tilepipe.drivers.tune_cache import TuneCache, cache_dir, entry_key
from tilepipe.drivers.tune_evaluate import Config, Outcome, evaluate
from tilepipe.drivers.tune_executors import run_jobs
from tilepipe.drivers.tune_report import format_table
from tilepipe.schedule_sim.calibration import Calibration, calibrated_target, public_figures
from tilepipe.schedule_sim.machine import clock_ghz, predict_kernel

__all__ = ["Config", "Outcome", "best", "declared_sizes", "format_table", "model_for", "tune"]

def declared_sizes(path: str, text: str) -> list[tuple[tuple[str, int], ...]]:
    """Every combination of the tile sizes the kernel declares (``[()]`` when it
    declares none); malformed declarations are a :class:`CompileError`."""
    from tilepipe.drivers.compile import CompileError, parse_kernel
    from tilepipe.core.diagnostics import op_diagnostic
    from tilepipe.dialects.tile_params import TUNE, tune_candidates

    module = parse_kernel(text, path)  # verifies the declarations
    kernels = [op for op in module.walk() if TUNE in op.attributes]
    if len(kernels) > 1:
        raise CompileError([op_diagnostic(
            kernels[1], "error", f"declares '{TUNE}' too: tilepipe tune takes the tile "
            "sizes of one kernel per file")])
    candidates = tune_candidates(kernels[0]) if kernels else {}
    names = list(candidates)
    return [tuple(zip(names, values)) for values in itertools.product(*candidates.values())]


def model_for(target: CudaTarget | AscendTarget, calibration: Calibration | None) -> Calibration:
    """The calibration the tuner uses for ``target``: the one given, else the public
    peak figures."""
    return calibration or public_figures(target, clock_ghz(target))


def _cache_key(job) -> str:
    """The tuning cache's key of a job (everything its outcome depends on)."""
    config, text, target, index_args, shapes, run_ptxas = job
    return entry_key({
        "kernel": text, "params": list(config.params), "num_stages": config.num_stages,
        "index_args": sorted(index_args.items()), "shapes": sorted(shapes.items()),
        "target": repr(target), "ptxas": run_ptxas,
    })


def apply_machine_model(outcome: Outcome, target: CudaTarget | AscendTarget, calibration: Calibration) -> None:
    """The kernel's time on ``target``'s machine, for a configuration that fits; one
    whose block fits no SM at all (its registers or threads) is rejected."""
    if not outcome.fits or outcome.cycles is None:
        return
    outcome.prediction = predict_kernel(target, outcome.blocks, outcome.cycles, outcome.demand,
                                        outcome.resources, outcome.uses_cube)
    if outcome.prediction.blocks_per_processor < 1:
        limiter = outcome.prediction.limiter
        outcome.rejected = f"occupancy: no block fits on an SM (its {limiter} allow none)"
        outcome.prediction = None
        return
    outcome.seconds = calibration.seconds(outcome.prediction.cycles)


def tune(
    kernels: Sequence[tuple[str, str]],
    target_name: str,
    depths: Sequence[int],
    index_args: dict[str, int] | None = None,
    run_ptxas: bool = True,
    jobs: int | None = None,
    shapes: dict[str, tuple[int, ...]] | None = None,
    *,
    calibration: Calibration | None = None,
    cache: TuneCache | None = None,
    executor: str = "local",
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Every configuration's outcome, in (kernel, tile sizes, depth) order, with the
    machine model's prediction; ``shapes`` gives the sizes of dynamically shaped memref
    arguments (by name) that the grid, the trip counts and the simulators are
    evaluated at.  ``calibration`` replaces the target's public figures; ``cache``
    answers the configurations it holds (and keeps the others); ``executor`` is
    ``local`` (``jobs`` worker processes) or ``ray`` (the cluster at ``address``);
    ``progress(done, total)`` hears of every finished configuration."""
    target = get_target(target_name)
    calibration = model_for(target, calibration)
    model_target = calibrated_target(target, calibration)
    configs = [
        (Config(path, d, sizes), text)
        for path, text in kernels
        for sizes in declared_sizes(path, text)
        for d in depths
    ]
    work = [
        (c, text, model_target, dict(index_args or {}), dict(shapes or {}), run_ptxas)
        for c, text in configs
    ]
    outcomes: list[Outcome | None] = [None] * len(work)
    keys = [_cache_key(job) for job in work] if cache else []
    for index, key in enumerate(keys):
        entry = cache.get(key)
        outcomes[index] = Outcome.from_cache_entry(work[index][0], entry) if entry else None
    missing = [index for index, outcome in enumerate(outcomes) if outcome is None]
    answered = len(work) - len(missing)
    report = progress or (lambda done, total: None)
    report(answered, len(work))
    workers = max(1, min(jobs or os.cpu_count() or 1, len(missing)))
    evaluated = run_jobs([work[i] for i in missing], evaluate, executor, workers, address,
                         lambda done: report(answered + done, len(work)))
    for index, outcome in zip(missing, evaluated):
        outcomes[index] = outcome
        if cache:
            cache.put(keys[index], outcome.cache_entry())
    for outcome in outcomes:
        apply_machine_model(outcome, target, calibration)
    return outcomes


def best(outcomes: Sequence[Outcome]) -> Outcome | None:
    fitting = [o for o in outcomes if o.fits]
    return min(fitting, key=Outcome.rank) if fitting else None


def parse_depths(spec: str) -> list[int]:
    """``"1-5"`` or ``"1,2,4"`` -> the depths."""
    depths: list[int] = []
    for part in spec.split(","):
        low, sep, high = part.partition("-")
        if not low.strip().isdigit() or (sep and not high.strip().isdigit()):
            raise ValueError(f"--num-stages takes N, N-M or a comma list, got '{spec}'")
        depths.extend(range(int(low), int(high) + 1) if sep else [int(low)])
    if not depths or min(depths) < 1:
        raise ValueError("num_stages must be at least 1")
    return depths


def _named_target(kernels: Sequence[tuple[str, str]]) -> str:
    """The target the kernels name in ``tile.target`` (sm_80 if none); kernels
    naming different targets must choose one with --target (a ValueError)."""
    from tilepipe.core.targets import DEFAULT_TARGET
    from tilepipe.drivers.compile import named_targets, parse_kernel

    named = sorted({t for path, text in kernels for t in named_targets(parse_kernel(text, path))})
    if len(named) > 1:
        raise ValueError(f"the kernels name different targets ({', '.join(named)}): "
                         "choose one with --target")
    return named[0] if named else DEFAULT_TARGET


def default_calibration_file() -> Path:
    """Where ``tilepipe tune`` looks for a calibration without ``--calibration`` (and
    ``scripts/gpu_check.py --calibrate`` writes one): in the cache directory."""
    return cache_dir() / "calibration.json"


def resolve_calibration(target: CudaTarget | AscendTarget, path: str | None) -> Calibration:
    """The calibration of ``target``: from ``path`` (it must have an entry for the
    target), else from the default file if it has one, else the public figures.  A
    file that cannot be used is a CalibrationError."""
    from tilepipe.schedule_sim.calibration import CalibrationError, read_calibrations

    if path is not None:
        entries = read_calibrations(Path(path))
        if target.name not in entries:
            known = ", ".join(sorted(entries)) or "none"
            raise CalibrationError(f"calibration file '{path}' has no entry for {target.name} (it has: {known})")
        return entries[target.name]
    default = default_calibration_file()
    if default.exists():
        calibration = read_calibrations(default).get(target.name)
        if calibration is not None:
            return calibration
    return model_for(target, None)


def _write_output(path: str, text: str) -> None:
    if path == "-":
        import sys

        sys.stdout.write(text)
    else:
        Path(path).write_text(text)


def run_tune_command(args) -> int:
    """``tilepipe tune`` (options as its parser in :mod:`tilepipe.drivers.cli` defines them);
    a malformed option value raises ValueError, a calibration file or an executor that
    cannot serve a CalibrationError or an ExecutorError (the caller reports those as
    one line)."""
    import json
    import sys

    from tilepipe.core.source import read_source
    from tilepipe.core.targets import TARGET_ALIASES
    from tilepipe.drivers.tune_report import (
        ProgressBar, json_report, model_line, progress_enabled, summary_line)
    from tilepipe.schedule_sim.flow import parse_index_args

    depths = parse_depths(args.num_stages)
    index_args = parse_index_args(args.index_args)
    kernels = [(path, read_source(Path(path))) for path in args.kernels]
    target = get_target(TARGET_ALIASES.get(args.target, args.target) or _named_target(kernels))
    calibration = resolve_calibration(target, args.calibration)
    cache = None if args.no_cache else TuneCache()
    bar = ProgressBar(progress_enabled(args.quiet, args.progress))
    try:
        outcomes = tune(kernels, target.name, depths, index_args, not args.no_ptxas, args.jobs,
                        dict(args.shape), calibration=calibration, cache=cache,
                        executor=args.executor, address=args.address, progress=bar.update)
    finally:
        bar.close()
    chosen = best(outcomes)
    if not args.quiet:
        print(format_table(outcomes, chosen), file=sys.stderr)
        print(model_line(target, calibration), file=sys.stderr)
        print(summary_line(outcomes), file=sys.stderr)
    if args.json:
        _write_output(args.json, json.dumps(json_report(outcomes, chosen, target, calibration), indent=2) + "\n")
    if args.svg:
        from tilepipe.drivers.tune_svg import tune_svg

        Path(args.svg).write_text(tune_svg(outcomes, chosen, model_line(target, calibration)), encoding="utf-8")
    if chosen is None:
        print("tilepipe tune: no configuration fits the budgets", file=sys.stderr)
        return 1
    if args.output:
        _write_output(args.output, chosen.text)
    elif args.json != "-":  # stdout holds the JSON report
        sys.stdout.write(chosen.text)
    return 0
