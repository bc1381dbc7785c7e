"""``python -m tilepipe`` is ``tile-opt``."""

from tilepipe.opt import main

main()
