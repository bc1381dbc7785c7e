"""``from tilepipe.profiler import do_bench``: TileLang's ``tilelang.profiler`` names
(:mod:`tilepipe.language.profiler`; it times the interpreter, not a GPU)."""

from tilepipe.language.profiler import Profiler, do_bench

__all__ = ["Profiler", "do_bench"]
