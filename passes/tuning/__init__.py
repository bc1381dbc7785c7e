"""Passes that serve ``tilepipe tune``: ``instantiate-tile-params`` rewrites a kernel
that declares tile-size candidates (``tile.tune``, :mod:`tilepipe.dialects.tile_params`)
at one value of each parameter."""
