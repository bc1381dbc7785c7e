"""The checks of one campaign kernel that both targets share (:class:`CheckRun`): parse,
compile, print/parse round trip, a second in-process compile; the targets' own checks
are in ``check_cuda`` and ``check_ascend``, the entry points in ``check``."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException

from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception, verify_module
from tilepipe.core.flows import FLOWS
from tilepipe.fuzz.program import Case

FILE = "fuzz.mlir"
CLASSES = (
    "internal-error", "race", "miscompile", "deadlock", "flag-protocol", "nondeterministic",
    "roundtrip", "rejected-valid", "lowering-limit", "ptxas", "syntax", "malformed", "generator",
)


def cuda_pipeline(target: str) -> str:
    """What ``tile-opt -p`` runs for a CUDA kernel: the CUDA flow to the scheduled level."""
    return FLOWS["cuda"].spec("scheduled")


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


class CheckRun:
    """The checks both targets share; :class:`~tilepipe.fuzz.check_cuda.CudaRun` and
    :class:`~tilepipe.fuzz.check_ascend.AscendRun` add the target's own."""

    def __init__(self, text: str, target: str, cases: list[Case], options: Options):
        self.text = text
        self.target = target
        self.cases = cases
        self.options = options
        self.findings: list[Finding] = []
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
        return self._guard(lambda: self.passes(module), module)

    def passes(self, module: ModuleOp) -> None:
        raise NotImplementedError

    def checks(self, module: ModuleOp, printed: str) -> None:
        """The target's checks of the compiled ``module`` (printed: ``printed``)."""
        raise NotImplementedError

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

    # -- the sampled backends

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
        try:
            self.checks(module, printed)
        except _Stop:
            pass
        return True


def _first_diff(a: str, b: str) -> str:
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return f"line {number}: '{x.strip()}' vs '{y.strip()}'"
    return "one output is longer"
