"""The compiler's output does not depend on Python's string hashing: every example
(CUDA ones through the sm_80 and sm_90 flows to NVVM, Ascend ones to AscendC) and every
regression kernel of test/regressions (the CUDA pass pipeline, or the error it stops
with) compiles to the same bytes under two PYTHONHASHSEEDs.  By default each CUDA
example compiles for the target it names, and of the regression kernels those that
once compiled differently (``nondeterministic_*``); ``TILEPIPE_DETERMINISM=long`` (or
``TILEPIPE_TESTS=long``) compiles each example for both targets and every regression
kernel.

Iterating over a set or a dict keyed by ops, values or points in the passes would
make barrier placement or wait counts vary between runs; so would z3 timeouts.  One
subprocess per seed compiles everything and prints a digest per kernel (run as a
script: ``python test/python/tools/test_determinism.py``).  Nor does it depend on what the
process compiled before: two compiles of one text in one process agree."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from sweeps import long_mode
from tilepipe.core.flows import FLOWS

ROOT = Path(__file__).resolve().parents[3]
HELPERS = Path(__file__).resolve().parents[1]  # sweeps.py, for the script run
SEEDS = ("1", "2")
CUDA = CUDA_SM90 = FLOWS["cuda"].spec("scheduled")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _cuda_example(text: str, name: str, target: str) -> str:
    from tilepipe.drivers.compile import CompileError, compile_kernel

    try:
        return compile_kernel(text, name, target, level="nvvm", run_ptxas=False).output
    except CompileError as err:
        return f"error: {err}"


def _ascend_example(text: str, name: str) -> str:
    from tilepipe.drivers.compile import CompileError, parse_kernel
    from tilepipe.core.flows import run_flow
    from tilepipe.lowering.ascend.ascendc import emit_ascendc

    try:
        module = parse_kernel(text, name)
        run_flow(module, "ascend")
    except CompileError as err:
        return f"error: {err}"
    return emit_ascendc(module)


def _pipeline(text: str, name: str) -> str:
    """tile-opt -p P (P90 for sm_90 kernels): the output, or the diagnostics."""
    passes = CUDA_SM90 if 'tile.target = "sm_90"' in text else CUDA
    from tilepipe.drivers.compile import CompileError, make_context, parse_kernel
    from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception
    from tilepipe.core.registry import get_all_passes
    from xdsl.utils.exceptions import DiagnosticException

    try:
        module = parse_kernel(text, name)
    except CompileError as err:
        return f"error: {err}"
    ctx = make_context()
    with collect_diagnostics() as collector:
        try:
            for pass_name in passes.split(","):
                get_all_passes()[pass_name]()().apply(ctx, module)
        except DiagnosticException as err:
            collector.diagnostics.append(diagnostic_of_exception(err))
            return "\n".join(str(d) for d in collector.diagnostics)
    return "\n".join(str(d) for d in collector.diagnostics) + "\n" + str(module)


def kernels() -> list[tuple[str, str, str]]:
    """(label, kind, path) of every kernel compiled, in a fixed order."""
    found = []
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        if path.name.startswith("ascend"):
            found.append((path.name, "ascend", str(path)))
        else:
            named = "sm_90" if 'tile.target = "sm_90"' in path.read_text() else "sm_80"
            for target in ("sm_80", "sm_90"):
                if target == named or long_mode("TILEPIPE_DETERMINISM"):
                    found.append((f"{path.name} {target}", target, str(path)))
    for path in sorted((ROOT / "test" / "regressions").glob("*.mlir")):
        if path.name.startswith("nondeterministic") or long_mode("TILEPIPE_DETERMINISM"):
            found.append((f"regressions/{path.name}", "pipeline", str(path)))
    return found


def print_digests() -> None:
    for label, kind, path in kernels():
        try:
            text = Path(path).read_text()
        except UnicodeDecodeError:
            print(label, "not utf-8")
            continue
        if kind == "ascend":
            output = _ascend_example(text, Path(path).name)
        elif kind == "pipeline":
            output = _pipeline(text, Path(path).name)
        else:
            output = _cuda_example(text, Path(path).name, kind)
        print(label, _digest(output), flush=True)


def test_compiler_output_does_not_depend_on_the_hash_seed():
    runs = [
        subprocess.Popen(
            [sys.executable, __file__],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": os.pathsep.join(
                filter(None, [str(HELPERS), os.environ.get("PYTHONPATH")])
            )},
        )
        for seed in SEEDS
    ]
    outputs = [run.communicate(timeout=600) for run in runs]
    for run, (_, stderr) in zip(runs, outputs):
        assert run.returncode == 0, stderr[-4000:]
    first, second = (stdout.splitlines() for stdout, _ in outputs)
    assert len(first) == len(second) == len(kernels())
    differing = [a.rsplit(" ", 1)[0] for a, b in zip(first, second) if a != b]
    assert differing == [], f"output depends on PYTHONHASHSEED: {differing}"


IN_PROCESS = (
    ROOT / "test" / "regressions" / "nondeterministic_in_process.mlir",
    ROOT / "test" / "regressions" / "nondeterministic_in_process_2.mlir",
)


def test_two_compiles_in_one_process_agree():
    # Every kernel compiled twice, the other kernel in between: nothing a compile
    # leaves behind in the process (z3's context, caches) may change the next one.
    texts = [path.read_text() for path in IN_PROCESS]
    first = [_pipeline(text, path.name) for text, path in zip(texts, IN_PROCESS)]
    second = [_pipeline(text, path.name) for text, path in zip(texts, IN_PROCESS)]
    for path, a, b in zip(IN_PROCESS, first, second):
        assert a == b, f"two compiles of {path.name} in one process differ"
        assert "error" not in a.split("\n", 1)[0], a[:2000]


if __name__ == "__main__":
    print_digests()
