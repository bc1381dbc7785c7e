"""``from tilepipe.autotuner import autotune``: TileLang's ``tilelang.autotuner``
names (:mod:`tilepipe.language.autotune`)."""

from tilepipe.language.autotune import AutoTuner, autotune

__all__ = ["AutoTuner", "autotune"]
