"""tilepipe's xDSL universe: lets the stock ``xdsl-opt`` see its dialects, passes,
output targets (``-t ptx``, ``-t nvvm-llvm``) and its frontend (``-f tilepipe``,
which reads the lowered level: tilepipe's ``gpu`` and ``vector`` in place of
xDSL's, see :class:`~tilepipe.core.source.TilepipeFrontend`); its passes verify their
input first."""

from xdsl.universe import Universe

from tilepipe.core.registry import (
    get_all_dialects,
    get_all_frontends,
    get_all_targets,
    get_verifying_passes,
)

TILEPIPE_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_verifying_passes(),
    all_targets=get_all_targets(),
    all_frontends=get_all_frontends(),
)
