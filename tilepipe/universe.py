"""tilepipe's xDSL universe: lets the stock ``xdsl-opt`` see its dialects and passes."""

from xdsl.universe import Universe

from tilepipe.registry import get_all_dialects, get_all_passes

TILEPIPE_UNIVERSE = Universe(
    all_dialects=get_all_dialects(), all_passes=get_all_passes()
)
