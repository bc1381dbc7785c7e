# lit configuration for tilepipe's FileCheck tests (test/**/*.mlir).
import os
import shutil

import lit.formats

config.name = "tilepipe"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
# The suite root is the repository; tests live under test/ (run `lit test/`).
config.excludes = [".venv", "examples", "bench", "docs", "build", "Inputs", "python"]
config.environment["PATH"] = os.environ.get("PATH", "")
for var in ("PYTHONPATH", "HOME", "TILEPIPE_PTXAS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%tile-opt", "tile-opt"))
config.substitutions.append(("%tile-run", "tile-run"))
config.substitutions.append(("%python", "python3"))
config.substitutions.append(
    ("%examples", os.path.join(os.path.dirname(__file__), "examples"))
)
# The CUDA pass pipeline up to sync insertion.
config.substitutions.append(
    (
        "%{cuda}",
        "pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync",
    )
)
# The same for sm_90: validation first, global -> shared copies as bulk (TMA) copies.
config.substitutions.append(
    (
        "%{cuda-sm90}",
        "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,"
        "merge-shared-memory,async-copy,thread-sync",
    )
)
# Custom form -> generic form -> custom form must give back the same text.
config.substitutions.append(
    (
        "%roundtrip",
        "tile-opt %s --split-input-file --print-op-generic "
        "| tile-opt --split-input-file | filecheck %s",
    )
)

if shutil.which("filecheck") is None:
    lit_config.fatal("filecheck not found on PATH (pip install filecheck==1.0.6)")
