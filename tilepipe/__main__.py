"""``python -m tilepipe`` is ``tile-opt``."""

import sys

from tilepipe.opt import main

sys.exit(main())
