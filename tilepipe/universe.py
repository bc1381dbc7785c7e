"""tilepipe's xDSL universe: lets the stock ``xdsl-opt`` see its dialects, passes and
output targets (``-t ptx``, ``-t nvvm-llvm``)."""

from xdsl.universe import Universe

from tilepipe.registry import get_all_dialects, get_all_passes, get_all_targets

TILEPIPE_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
