"""One kernel through the whole flow, in-process; every failure classified.

CUDA (sm_80 / sm_90): the tile-opt pipeline (``P`` / ``P90`` below, each pass verified)
-> print -> parse -> print fixed point -> a second compile from scratch gives the same
text -> the race detector and a bit-exact comparison with the source in the
interpreter at every case the kernel is checked at (a value of ``%n`` and the sizes of
its dynamically shaped arrays: :class:`~tilepipe.fuzz.program.Case`).  Optionally
(samples): ``tile-opt`` in subprocesses with two other ``PYTHONHASHSEED`` s, the full
``tilepipe compile`` to PTX with ptxas, and the per-thread NVVM interpreter at each
case.

Ascend: the Ascend pass pipeline -> round trip -> determinism -> the pipe simulator
(races, deadlock, flag misuse, flags left set) compared bit-exactly with the tile-level
interpreter; optionally the AscendC ``--syntax-check``.

A *finding* has a class (:data:`CLASSES`) and a one-line summary.  ``generator`` is
the fuzzer's own fault (the source kernel does not run in the reference interpreter);
any rejection of a generated kernel is ``rejected-valid`` until triaged.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from io import StringIO

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException

from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception, verify_module

from tilepipe.fuzz.program import ASCEND_TARGET, Case, Program, parse_case

P = "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync"
P90 = "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync"
FILE = "fuzz.mlir"
CLASSES = (
    "internal-error", "race", "miscompile", "deadlock", "flag-protocol", "nondeterministic",
    "roundtrip", "rejected-valid", "ptxas", "syntax", "malformed", "generator",
)


def cuda_pipeline(target: str) -> str:
    return P90 if target == "sm_90" else P


@dataclass
class Finding:
    cls: str
    summary: str

    def __str__(self) -> str:
        return f"{self.cls}: {self.summary}"


@dataclass
class Options:
    """The expensive checks, each on or off for this kernel (the CLI samples them)."""

    hashseed: bool = False  # tile-opt with PYTHONHASHSEED=1 and 2 in subprocesses
    ptx: bool = False  # tilepipe compile to PTX, ptxas
    nvvm: bool = False  # lower-to-nvvm and the per-thread interpreter
    syntax: bool = False  # AscendC syntax check
    # The minimizer turns off what cannot show the class it chases.
    determinism: bool = True  # a second in-process compile
    execute: bool = True  # the interpreter / pipe simulator runs


@dataclass
class Outcome:
    target: str
    kind: str
    seed: int
    text: str
    cases: list[Case]
    compiled: bool = False
    rejected: bool = False
    findings: list[Finding] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def classes(self) -> list[str]:
        return [f.cls for f in self.findings]


class _Stop(Exception):
    """A finding after which the rest of the check cannot run."""


def _first_line(text: object) -> str:
    lines = [line for line in str(text).splitlines() if line.strip()]
    return lines[0].strip() if lines else repr(text)


def print_module(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue() + "\n"


def parse(text: str) -> ModuleOp:
    from tilepipe.drivers.opt import LocatingParser
    from tilepipe.core.registry import make_context

    return LocatingParser(make_context(), text, FILE).parse_module()


class _Run:
    def __init__(self, text: str, target: str, cases: list[Case], options: Options):
        self.text = text
        self.target = target
        self.cases = cases
        self.options = options
        self.findings: list[Finding] = []
        self.unsupported: list[str] = []  # lower-to-nvvm's documented limits
        self.rejected = False

    def add(self, cls: str, summary: str) -> None:
        if cls not in [f.cls for f in self.findings]:
            # One line, and short: an exception's text may print a whole op.
            summary = " ".join(summary.split())
            self.findings.append(Finding(cls, summary if len(summary) <= 240 else summary[:237] + "..."))

    def internal(self, err: BaseException, where: str) -> None:
        self.add("internal-error", f"{where}: {type(err).__name__}: {_first_line(err)}")

    # -- the stages shared by both flows

    def source(self) -> ModuleOp:
        try:
            module = parse(self.text)
        except Exception as err:  # noqa: BLE001 -- a ParseError: our kernel is invalid
            self.add("generator", f"the kernel does not parse: {_first_line(err)}")
            raise _Stop from None
        if (diagnostic := verify_module(module)) is not None:
            self.rejected = True
            self.add("rejected-valid", f"verifier: {diagnostic.message}")
            raise _Stop
        return module

    def compile(self) -> ModuleOp:
        module = self.source()
        if self.target == ASCEND_TARGET:
            return self._guard(lambda: self._ascend_passes(module), module)
        return self._guard(lambda: self._cuda_passes(module), module)

    def _guard(self, run, module: ModuleOp) -> ModuleOp:
        with collect_diagnostics():
            try:
                run()
            except DiagnosticException as err:
                self.rejected = True
                self.add("rejected-valid", diagnostic_of_exception(err).message)
                raise _Stop from None
            except _Stop:
                raise
            except RecursionError as err:
                self.add("internal-error", f"RecursionError: {_first_line(err)}")
                raise _Stop from None
            except Exception as err:  # noqa: BLE001 -- any exception is a compiler bug
                self.internal(err, "pass pipeline")
                raise _Stop from None
        return module

    def _cuda_passes(self, module: ModuleOp) -> None:
        from tilepipe.core.registry import get_all_passes, make_context

        passes = get_all_passes()
        ctx = make_context()
        for name in cuda_pipeline(self.target).split(","):
            try:
                passes[name]()().apply(ctx, module)
            except DiagnosticException:
                raise
            except Exception as err:  # noqa: BLE001
                self.internal(err, name)
                raise _Stop from None
            if (diagnostic := verify_module(module)) is not None:
                self.rejected = True
                self.add("rejected-valid", f"{name} output fails verification: {diagnostic.message}")
                raise _Stop

    def _ascend_passes(self, module: ModuleOp) -> None:
        from tilepipe.lowering.ascend.pipeline import compile_ascend

        compile_ascend(module)
        if (diagnostic := verify_module(module)) is not None:
            self.rejected = True
            self.add("rejected-valid", f"ascend pipeline output fails verification: {diagnostic.message}")
            raise _Stop

    def roundtrip(self, printed: str) -> None:
        try:
            again = print_module(parse(printed))
        except Exception as err:  # noqa: BLE001
            # xDSL's message: location, the offending line, a caret, the reason.
            lines = [line.strip() for line in str(err).splitlines() if line.strip()]
            where = " ".join(lines[:2])
            self.add("roundtrip", f"the printed output does not parse at {where} ({lines[-1] if lines else ''})")
            return
        if again != printed:
            self.add("roundtrip", "print -> parse -> print differs: " + _first_diff(printed, again))

    def determinism(self, printed: str) -> None:
        second = print_module(self.compile())
        if second != printed:
            self.add("nondeterministic", "two in-process compiles differ: " + _first_diff(printed, second))

    def hashseeds(self, printed: str) -> None:
        outputs = []
        for seed in ("1", "2"):
            env = {**os.environ, "PYTHONHASHSEED": seed}
            done = subprocess.run(
                [sys.executable, "-m", "tilepipe", "-p", cuda_pipeline(self.target)],
                input=self.text, capture_output=True, text=True, env=env, timeout=120,
            )
            outputs.append(done.stdout)
        if outputs[0] != outputs[1]:
            self.add(
                "nondeterministic",
                "tile-opt output depends on PYTHONHASHSEED (1 vs 2): " + _first_diff(*outputs),
            )

    # -- running

    def inputs(self, module: ModuleOp, case: Case) -> dict:
        """Seeded random arrays for the memref arguments, of the case's sizes (the
        arrays carry the dynamic shapes into every interpreter)."""
        from tilepipe.semantics import select_kernel
        from tilepipe.semantics.tile.grid_runner import random_array

        func = select_kernel(module, None)
        rng = np.random.default_rng(0)
        shapes = case.shape_map
        arrays = {}
        for arg in func.body.block.args:
            if isinstance(arg.type, MemRefType):
                arrays[arg.name_hint] = random_array(arg.type, rng, shapes.get(arg.name_hint))
        return arrays

    def reference(self, inputs: dict, case: Case) -> dict:
        from tilepipe.semantics import KernelError, execute

        try:
            return execute(
                self.text, inputs=inputs, index_args=case.index_args, file_name=FILE
            ).outputs
        except KernelError as err:
            self.add("generator", f"the source does not run ({case}): {_first_line(err)}")
        except Exception as err:  # noqa: BLE001
            self.internal(err, "interpreter on the source")
        raise _Stop

    def execute_cuda(self, module: ModuleOp) -> None:
        from tilepipe.semantics import KernelError, execute
        from tilepipe.semantics.compare import first_difference

        for case in self.cases:
            inputs = self.inputs(module, case)
            expected = self.reference(inputs, case)
            try:
                run = execute(module, inputs=inputs, index_args=case.index_args, check_races=True)
            except KernelError as err:
                cls = "deadlock" if "deadlock" in str(err) else "miscompile"
                self.add(cls, f"{case}: the compiled kernel fails: {_first_line(err)}")
                continue
            except Exception as err:  # noqa: BLE001
                self.internal(err, f"interpreter ({case})")
                continue
            if run.races:
                self.add("race", f"{case}: {len(run.races)} race(s), first: {_first_line(run.races[0])}")
            difference = first_difference(expected, run.outputs)
            if difference is not None:
                self.add("miscompile", f"{case}: {difference}")

    def execute_ascend(self, module: ModuleOp) -> None:
        from tilepipe.semantics import KernelError
        from tilepipe.semantics.ascend.sim import run_ascend_kernel
        from tilepipe.semantics.compare import first_difference

        for case in self.cases:
            inputs = self.inputs(module, case)
            expected = self.reference(inputs, case)
            index_args = case.index_args
            try:
                report = run_ascend_kernel(module, {k: v.copy() for k, v in inputs.items()}, index_args)
            except KernelError as err:
                # Races, deadlocks and flag misuse come in the report; an error means
                # the simulator cannot run what the compiler made of a valid kernel.
                self.add("rejected-valid", f"pipe simulator ({case}): {_first_line(err)}")
                continue
            except Exception as err:  # noqa: BLE001
                self.internal(err, f"pipe simulator ({case})")
                continue
            where = str(case)
            if report.deadlock:
                self.add("deadlock", f"{where}: {_first_line(report.deadlock[0])}")
            if report.races:
                self.add("race", f"{where}: {len(report.races)} race(s), first: {_first_line(report.races[0])}")
            if report.flag_errors or report.flags_left:
                first = (report.flag_errors or report.flags_left)[0]
                self.add("flag-protocol", f"{where}: {_first_line(first)}")
            if not report.deadlock:
                difference = first_difference(expected, report.outputs, "tile level", "pipe simulator")
                if difference is not None:
                    self.add("miscompile", f"{where}: {difference}")

    # -- the sampled backends

    def ptx(self) -> None:
        """``tilepipe compile`` to PTX in a child process: the driver forks its own
        upstream-MLIR child (not allowed in a pool worker), and an LLVM abort must not
        take the campaign down."""
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, FILE)
            with open(path, "w") as f:
                f.write(self.text)
            done = subprocess.run(
                [sys.executable, "-m", "tilepipe.drivers.cli", "compile", path, "--target", self.target,
                 "--emit", "ptx", "-o", os.path.join(folder, "out.ptx")],
                capture_output=True, text=True, timeout=300,
            )
        errors = [l for l in done.stderr.splitlines() if "error" in l.lower()] or done.stderr.splitlines()
        message = errors[0] if errors else f"exit status {done.returncode}"
        if done.returncode == 0:
            return
        if done.returncode < 0 or "Traceback" in done.stderr or "internal" in done.stderr:
            self.add("internal-error", f"tilepipe compile (exit {done.returncode}): {message}")
        elif "ptxas" in message:
            self.add("ptxas", f"tilepipe compile: {message}")
        elif re.search(r":\d+:\d+: error: 'tile\.", message):
            # lower-to-nvvm names the tile op it has no lowering for: a documented limit
            # (docs/nvvm.md), not a failure -- counted, and listed with -v.
            self.unsupported.append(f"tilepipe compile: {message}")
        else:
            self.add("rejected-valid", f"tilepipe compile: {message}")

    def nvvm(self, module: ModuleOp) -> None:
        """lower-to-nvvm and the per-thread interpreter at each case: the arrays (of the
        case's sizes: the lowered kernel reads them from its memref descriptors) and
        %n in argument order, over the grid the tile level launches."""
        from tilepipe.lowering.nvvm.to_nvvm import LowerToNVVM
        from tilepipe.passes.analysis.grid import evaluate_grid
        from tilepipe.core.registry import make_context
        from tilepipe.semantics import select_kernel
        from tilepipe.semantics.nvvm.interp import run_nvvm_kernel

        lowered = module.clone()
        try:
            with collect_diagnostics():
                LowerToNVVM().apply(make_context(), lowered)
        except DiagnosticException as err:
            self.unsupported.append(f"lower-to-nvvm: {diagnostic_of_exception(err).message}")
            return
        except Exception as err:  # noqa: BLE001
            self.internal(err, "lower-to-nvvm")
            return
        func = select_kernel(module, None)
        for case in self.cases:
            inputs = self.inputs(module, case)
            expected = self.reference(inputs, case)
            args = [
                inputs[arg.name_hint] if isinstance(arg.type, MemRefType)
                else np.int64(case.index_args[arg.name_hint])
                for arg in func.body.block.args
            ]
            grid = evaluate_grid(func, case.index_args, case.shape_map)
            blocks = list(itertools.product(*(range(g) for g in grid)))
            try:
                run = run_nvvm_kernel(lowered, args, blocks=blocks, check_races=True)
            except Exception as err:  # noqa: BLE001
                cls = "deadlock" if "deadlock" in str(err) else "internal-error"
                self.add(cls, f"nvvm interpreter ({case}): {type(err).__name__}: {_first_line(err)}")
                return
            if run.races:
                self.add("race", f"nvvm interpreter ({case}): {_first_line(run.races[0])}")
            for arg, got in zip(func.body.block.args, run.outputs):
                if arg.name_hint not in expected:
                    continue
                same = np.array_equal(
                    np.asarray(expected[arg.name_hint], np.float64), np.asarray(got, np.float64),
                    equal_nan=True,
                )
                if not same:
                    self.add(
                        "miscompile",
                        f"nvvm interpreter ({case}): %{arg.name_hint} differs from the tile level",
                    )
                    return

    def syntax(self, module: ModuleOp) -> None:
        from tilepipe.lowering.ascend.ascendc import emit_ascendc, syntax_check

        try:
            result = syntax_check(emit_ascendc(module))
        except Exception as err:  # noqa: BLE001
            self.internal(err, "AscendC emission")
            return
        if result.returncode != 0:
            error = next((l for l in result.stderr.splitlines() if "error" in l), result.stderr)
            self.add("syntax", f"g++ -fsyntax-only: {error.strip()}")

    def run(self) -> bool:
        """All checks; True when the kernel compiled."""
        try:
            module = self.compile()
        except _Stop:
            return False
        printed = print_module(module)
        self.roundtrip(printed)
        if self.options.determinism:
            try:
                self.determinism(printed)
            except _Stop:
                pass
        # ``execute`` gates the interpreter runs only: the sampled backends run on
        # their own (the minimizer turns execution off when chasing one of theirs).
        if self.target == ASCEND_TARGET:
            try:
                if self.options.execute:
                    self.execute_ascend(module)
            except _Stop:
                return True
            if self.options.syntax:
                self.syntax(module)
            return True
        if self.options.hashseed:
            self.hashseeds(printed)
        try:
            if self.options.execute:
                self.execute_cuda(module)
            if self.options.nvvm:
                self.nvvm(module)
        except _Stop:
            return True
        if self.options.ptx:
            self.ptx()
        return True


def _first_diff(a: str, b: str) -> str:
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {number}: '{x.strip()}' vs '{y.strip()}'"
    return "one output is longer"


def check_text(text: str, target: str, cases: list, options: Options | None = None) -> Outcome:
    """Check one kernel text at each of ``cases``: :class:`Case` s, or values of %n
    (None: no %n) for kernels whose arrays are all static."""
    start = time.perf_counter()
    cases = [c if isinstance(c, Case) else Case(c) for c in cases]
    run = _Run(text, target, cases, options or Options())
    outcome = Outcome(target, "", 0, text, cases)
    outcome.compiled = run.run()
    outcome.rejected = run.rejected
    outcome.findings = run.findings
    outcome.unsupported = run.unsupported
    outcome.seconds = time.perf_counter() - start
    return outcome


def check_program(program: Program, options: Options | None = None) -> Outcome:
    outcome = check_text(program.text(), program.target, program.cases(), options)
    outcome.kind, outcome.seed = program.kind, program.seed
    return outcome


def main(argv: list[str] | None = None) -> int:
    """``python -m tilepipe.fuzz.check KERNEL.mlir [--trips 0,1,2] [--ptx] [--nvvm] [--syntax]``:
    every check of a campaign on one kernel file (a reproducer); exit 1 on a finding.
    The file's ``// case: n=3 A=17x32`` lines (reproducer headers) give the cases;
    ``--trips`` replaces their values of %n (each with the first case's sizes)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tilepipe.fuzz.check", description=main.__doc__)
    parser.add_argument("kernel")
    parser.add_argument("--trips", default="", help="values of %%n, comma-separated")
    parser.add_argument("--ptx", action="store_true", help="also tilepipe compile to PTX")
    parser.add_argument("--nvvm", action="store_true",
                        help="also lower-to-nvvm and the per-thread interpreter")
    parser.add_argument("--syntax", action="store_true", help="also the AscendC syntax check")
    parser.add_argument("--hashseed", action="store_true", help="also tile-opt under two PYTHONHASHSEEDs")
    args = parser.parse_args(argv)
    with open(args.kernel, encoding="utf-8") as f:
        text = f.read()
    target = re.search(r'tile\.target = "(\w+)"', text)
    if target is None:
        print(f"{args.kernel}: no tile.target attribute", file=sys.stderr)
        return 2
    cases = [parse_case(line) for line in re.findall(r"^// case:(.*)$", text, re.MULTILINE)]
    trips = [int(t) for t in args.trips.split(",") if t.strip()]
    if trips:
        shapes = cases[0].shapes if cases else ()
        cases = [Case(n, shapes) for n in trips]
    options = Options(hashseed=args.hashseed, ptx=args.ptx, nvvm=args.nvvm, syntax=args.syntax)
    outcome = check_text(text, target.group(1), cases or [Case()], options)
    for finding in outcome.findings:
        print(finding)
    print(f"{args.kernel}: {len(outcome.findings)} finding(s) in {outcome.seconds:.1f} s")
    return 1 if outcome.findings else 0


if __name__ == "__main__":
    sys.exit(main())
