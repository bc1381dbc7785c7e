"""One kernel through the whole flow, in-process; every failure classified.

CUDA (sm_80 / sm_90, :mod:`tilepipe.fuzz.check_cuda`): the CUDA flow to the scheduled
level (each pass verified)
-> print -> parse -> print fixed point -> a second compile from scratch gives the same
text -> the race detector and a bit-exact comparison with the source in the
interpreter at every case the kernel is checked at (a value of ``%n`` and the sizes of
its dynamically shaped arrays: :class:`~tilepipe.fuzz.program.Case`).  Optionally
(samples): ``tile-opt`` in subprocesses with two other ``PYTHONHASHSEED`` s, the full
``tilepipe compile`` to PTX with ptxas, and the per-thread NVVM interpreter at each
case.

Ascend (:mod:`tilepipe.fuzz.check_ascend`): the Ascend flow -> round trip -> determinism -> the pipe simulator
(races, deadlock, flag misuse, flags left set) compared bit-exactly with the tile-level
interpreter; optionally the AscendC ``--syntax-check``.

A *finding* has a class (:data:`CLASSES`) and a one-line summary.  ``generator`` is
the fuzzer's own fault (the source kernel does not run in the reference interpreter);
any rejection of a generated kernel is ``rejected-valid`` until triaged.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field

from tilepipe.fuzz.check_ascend import AscendRun
from tilepipe.fuzz.check_cuda import CudaRun
from tilepipe.fuzz.check_run import (  # noqa: F401  (the campaign's names, re-exported)
    CLASSES,
    FILE,
    Finding,
    Options,
    cuda_pipeline,
    parse,
    print_module,
)
from tilepipe.fuzz.program import ASCEND_TARGET, Case, Program, parse_case


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
    seconds: float = 0.0

    @property
    def classes(self) -> list[str]:
        return [f.cls for f in self.findings]


def check_text(text: str, target: str, cases: list, options: Options | None = None) -> Outcome:
    """Check one kernel text at each of ``cases``: :class:`Case` s, or values of %n
    (None: no %n) for kernels whose arrays are all static."""
    start = time.perf_counter()
    cases = [c if isinstance(c, Case) else Case(c) for c in cases]
    kind = AscendRun if target == ASCEND_TARGET else CudaRun
    run = kind(text, target, cases, options or Options())
    outcome = Outcome(target, "", 0, text, cases)
    outcome.compiled = run.run()
    outcome.rejected = run.rejected
    outcome.findings = run.findings
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
