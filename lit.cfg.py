# lit configuration for tilepipe's FileCheck tests (test/**/*.mlir).
import importlib.util
import os

import lit.formats

config.name = "tilepipe"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
# The suite root is the repository; tests live under test/ (run `lit test/`).
config.excludes = [".venv", "examples", "bench", "docs", "build", "Inputs", "python"]
config.substitutions.append(
    ("%examples", os.path.join(os.path.dirname(__file__), "examples"))
)
# Custom form -> generic form -> custom form must give back the same text.
config.substitutions.append(
    (
        "%roundtrip",
        "tile-opt %s --split-input-file --print-op-generic "
        "| tile-opt --split-input-file | filecheck %s",
    )
)
# What a downstream suite gets too (%tile-opt, %{cuda}, %{cuda-sm90}, %python, ...),
# from this checkout's helper, whichever tilepipe the Python running lit has installed.
_spec = importlib.util.spec_from_file_location(
    "tilepipe_lit_support", os.path.join(os.path.dirname(__file__), "tilepipe", "drivers", "lit_support.py")
)
lit_support = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lit_support)
# The tools start as clients of a fork server (imports done once); set
# TILEPIPE_LIT_FORK_SERVER=0 to run each as its own process.
lit_support.configure(
    config, lit_config, fork_server=os.environ.get("TILEPIPE_LIT_FORK_SERVER", "1") != "0"
)
