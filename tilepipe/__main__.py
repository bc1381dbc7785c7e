"""``python -m tilepipe`` is ``tile-opt``."""

import sys

from tilepipe.drivers.opt import main

sys.exit(main())
