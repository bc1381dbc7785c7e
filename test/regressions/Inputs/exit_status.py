"""Run a command and pass only if it exits with the given status.

``not`` accepts any non-zero status, so it cannot tell a located error (exit 1) from
an internal one (exit 2 in tile-opt, 4 in tile-run).  Usage in a RUN line:
``%python %S/Inputs/exit_status.py 1 tile-opt %s 2>&1 | filecheck %s``.
"""

import subprocess
import sys

expected = int(sys.argv[1])
status = subprocess.run(sys.argv[2:]).returncode
if status != expected:
    print(f"exit_status.py: exit status {status}, expected {expected}", file=sys.stderr)
sys.exit(0 if status == expected else 1)
