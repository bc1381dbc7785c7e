"""TileLang's ``@autotune(configs=...)`` on tilepipe.

Stacked on a ``@tilepipe.jit`` kernel (a factory or an eager kernel), it picks
the values of the tunable parameters the call leaves out.  TileLang times each
configuration on the GPU; tilepipe compiles each one through its full flow
(configurations that break a budget -- shared memory, registers -- or any check
are dropped with their reason) and ranks the rest by the schedule simulator's
predicted cycles for the whole grid, the model ``tilepipe tune`` uses
(docs/schedule_sim.md).  A call that gives every tunable parameter compiles that
configuration only, as in TileLang.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tilepipe.core.diagnostics import Diagnostic
from tilepipe.drivers.compile import CompileError


@dataclass
class Trial:
    config: dict[str, Any]
    cycles: float | None = None  # predicted, for the whole grid
    rejected: str | None = None


def predicted_cycles(kernel: Any) -> float:
    """One block's simulated cycles times the number of blocks (static grids)."""
    from tilepipe.schedule_sim.flow import simulate_kernels

    module = kernel.scheduled()
    (_, report), *_ = simulate_kernels(module)
    func = module.body.block.first_op
    grid = func.attributes.get("tile.grid")  # type: ignore[union-attr]
    blocks = math.prod(grid.get_values()) if grid is not None else 1  # type: ignore[attr-defined]
    return float(report.total_cycles) * blocks


class AutoTuner:
    """The tuned callable: ``tuner(*args, **kwargs)`` tunes the parameters the call
    leaves out, then behaves as the jitted function called with the best of them;
    ``tuner.trials`` lists what the last tuning tried."""

    def __init__(self, jitted: Any, configs: Sequence[dict[str, Any]] | Callable[..., Any]):
        self.jitted, self.configs = jitted, configs
        self.trials: list[Trial] = []
        self.__name__ = getattr(jitted, "__name__", "kernel")
        self.__wrapped__ = jitted

    def _configs(self, args: tuple, kwargs: dict[str, Any]) -> list[dict[str, Any]]:
        configs = self.configs(*args, **kwargs) if callable(self.configs) else self.configs
        return [dict(c) for c in configs]

    def best_config(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        configs = self._configs(args, kwargs)
        tunable = set().union(*(c.keys() for c in configs)) if configs else set()
        if tunable <= set(kwargs):
            return {}
        self.trials = []
        seen: set[tuple] = set()
        for config in configs:
            merged = {**config, **kwargs}
            key = tuple(sorted((k, repr(v)) for k, v in merged.items()))
            if key in seen:
                continue
            seen.add(key)
            trial = Trial(config)
            self.trials.append(trial)
            try:
                kernel = self.jitted.compile(*args, **merged)
                trial.cycles = predicted_cycles(kernel)
            except CompileError as err:
                trial.rejected = str(err).strip().splitlines()[0] if str(err).strip() else "rejected"
        ranked = sorted((t for t in self.trials if t.rejected is None), key=lambda t: t.cycles)
        if not ranked:
            reasons = "; ".join(f"{t.config}: {t.rejected}" for t in self.trials) or "no configs"
            raise CompileError([Diagnostic("error", f"autotune: no configuration compiles ({reasons})")])
        return ranked[0].config

    def compile(self, *args: Any, **kwargs: Any) -> Any:
        return self.jitted.compile(*args, **{**self.best_config(*args, **kwargs), **kwargs})

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.jitted(*args, **{**self.best_config(*args, **kwargs), **kwargs})


def autotune(func: Any = None, *, configs: Sequence[dict[str, Any]] | Callable[..., Any],
             warmup: int = 25, rep: int = 100, timeout: int = 100, **_options: Any) -> Any:
    """``@autotune(configs=[{...}, ...])`` above ``@tilepipe.jit``.  ``warmup``,
    ``rep``, ``timeout`` and TileLang's checking options are accepted and ignored:
    configurations are ranked by the model, not timed."""

    def wrap(jitted: Any) -> AutoTuner:
        return AutoTuner(jitted, configs)

    return wrap if func is None else wrap(func)
