"""``python -m tilepipe.fuzz``: a differential fuzzing campaign.

    python -m tilepipe.fuzz --count 200 --seed 1 --targets sm_80,sm_90,ascend910b \\
        --jobs 2 --out fuzz-out --minimize

Kernel ``i`` of a campaign is ``generate(seed + i, targets[i % len(targets)])``, so any
kernel is reproduced from its seed and target alone.  Prints a table per target
(generated, compiled, rejected, failures by class) and exits 1 on any failure.  With
``--out`` one kernel per distinct finding (target, class, summary without names and
numbers) is written there as ``<class>_<n>.mlir``, minimized with ``--minimize``.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

from tilepipe.fuzz.check import CLASSES, Options, Outcome, check_program
from tilepipe.fuzz.generate import generate
from tilepipe.fuzz.program import ASCEND_TARGET, CUDA_TARGETS, Program

TARGETS = (*CUDA_TARGETS, ASCEND_TARGET)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tilepipe.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="kernels to generate")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first kernel")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated targets")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", help="write failing kernels (reproducers) into this folder")
    parser.add_argument("--minimize", action="store_true", help="minimize failing kernels (needs --out)")
    parser.add_argument("--minimize-budget", type=float, default=60.0, metavar="S",
                        help="seconds of minimization per distinct finding")
    parser.add_argument("--malformed", type=int, default=0, metavar="M",
                        help="also check M malformed inputs (tilepipe.fuzz.malformed)")
    parser.add_argument("--ptx-every", type=int, default=10, metavar="K",
                        help="full tilepipe compile to PTX with ptxas for every K-th CUDA kernel (0: never)")
    parser.add_argument("--nvvm-every", type=int, default=1, metavar="K",
                        help="per-thread NVVM interpreter for every K-th CUDA kernel (0: never)")
    parser.add_argument("--hashseed-every", type=int, default=25, metavar="K",
                        help="tile-opt under two PYTHONHASHSEEDs for every K-th CUDA kernel (0: never)")
    parser.add_argument("--syntax-every", type=int, default=5, metavar="K",
                        help="AscendC syntax check for every K-th Ascend kernel (0: never)")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per kernel")
    return parser


def _every(k: int, i: int) -> bool:
    return k > 0 and i % k == 0


def _job(task: tuple[int, str, dict]) -> Outcome:
    seed, target, sample = task
    program = generate(seed, target)
    return check_program(program, Options(**sample))


def tasks(args: argparse.Namespace, targets: list[str]) -> list[tuple[int, str, dict]]:
    out = []
    for i in range(args.count):
        target = targets[i % len(targets)]
        n = i // len(targets)  # the kernel's rank among its target's
        sample = dict(
            ptx=_every(args.ptx_every, n), nvvm=_every(args.nvvm_every, n),
            hashseed=_every(args.hashseed_every, n), syntax=_every(args.syntax_every, n),
        )
        out.append((args.seed + i, target, sample))
    return out


def _malformed(count: int, seed: int) -> list[tuple[str, str]]:
    """(case, failure) for each failing malformed input of ``tilepipe.fuzz.malformed``."""
    try:
        malformed = importlib.import_module("tilepipe.fuzz.malformed")
    except ModuleNotFoundError:
        raise SystemExit(
            "python -m tilepipe.fuzz: --malformed needs tilepipe/fuzz/malformed.py "
            "(malformed_cases, check_malformed), which this checkout lacks"
        ) from None
    failures = []
    for case in malformed.malformed_cases(seed, count):
        problem = malformed.check_malformed(case)
        if problem is not None:
            failures.append((str(case), problem))
    return failures


def summary_table(outcomes: list[Outcome], targets: list[str]) -> str:
    found = [c for c in CLASSES if any(c in o.classes for o in outcomes)]
    header = ["target", "generated", "compiled", "rejected", *found]
    rows = [header]
    for target in targets:
        mine = [o for o in outcomes if o.target == target]
        counts = Counter(c for o in mine for c in o.classes)
        rows.append([
            target, str(len(mine)), str(sum(o.compiled for o in mine)),
            str(sum(o.rejected for o in mine)),
            *(str(counts[c]) for c in found),
        ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows)


def signature(outcome: Outcome) -> tuple[str, str, str]:
    """What tells findings apart: target, class and the summary without names,
    numbers and trip counts (a campaign repeats one bug many times)."""
    finding = outcome.findings[0]
    # A case (Case.__str__) names %n and each dynamic array's sizes.
    case = r"(static sizes|(n = \d+|%[\w.]+ = [\dx]+)(, %[\w.]+ = [\dx]+)*)"
    text = re.sub(rf"^{case}: ", "", finding.summary)
    text = re.sub(rf"\({case}\)", "(case)", text)
    text = re.sub(r"\d+", "N", re.sub(r"%[\w.]+", "%", text))
    return outcome.target, finding.cls, text[:60]


def _reproducer(task: tuple[Outcome, bool, float]) -> tuple[Program, Outcome]:
    from tilepipe.fuzz.minimize import minimize_outcome

    outcome, minimize, budget = task
    if minimize:
        return minimize_outcome(outcome, outcome.findings[0].cls, budget)
    return generate(outcome.seed, outcome.target), outcome


def _write(out: Path, program: Program, outcome: Outcome, cls: str) -> Path:
    from tilepipe.fuzz.minimize import reproducer_text

    number = 1
    while (path := out / f"{cls}_{number}.mlir").exists():
        number += 1
    path.write_text(reproducer_text(program, outcome, cls))
    return path


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in targets if t not in TARGETS]
    if unknown or not targets:
        print(f"python -m tilepipe.fuzz: unknown target(s) {unknown}; known: {', '.join(TARGETS)}",
              file=sys.stderr)
        return 2
    if args.minimize and not args.out:
        print("python -m tilepipe.fuzz: --minimize needs --out", file=sys.stderr)
        return 2
    start = time.perf_counter()
    work = tasks(args, targets)
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            outcomes = list(pool.imap(_job, work, chunksize=2))
    else:
        outcomes = [_job(task) for task in work]
    elapsed = time.perf_counter() - start
    failing = [o for o in outcomes if o.findings]
    for o in outcomes:
        if args.verbose or o.findings:
            status = "; ".join(str(f) for f in o.findings) or "ok"
            print(f"{o.target} seed {o.seed} ({o.kind}, {o.seconds:.2f} s): {status}")
    malformed = _malformed(args.malformed, args.seed) if args.malformed else []
    for case, problem in malformed:
        print(f"malformed {case}: {problem}")
    if args.out and failing:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        distinct: dict[tuple[str, str, str], Outcome] = {}
        for o in failing:
            first = distinct.setdefault(signature(o), o)
            if first is not o:
                print(f"{o.target} seed {o.seed}: the finding of seed {first.seed}")
        work = [(o, args.minimize, args.minimize_budget) for o in distinct.values()]
        pool = Pool(args.jobs) if args.jobs > 1 else None
        # Written as each finishes, so that a campaign cut short keeps what it has.
        reproducers = pool.imap(_reproducer, work, chunksize=1) if pool else map(_reproducer, work)
        for original, (program, outcome) in zip(distinct.values(), reproducers):
            cls = original.findings[0].cls
            if cls not in outcome.classes:  # the minimizer's check missed it: keep the original
                program, outcome = generate(original.seed, original.target), original
            path = _write(out, program, outcome, cls)
            print(f"wrote {path} ({original.target} seed {original.seed})", flush=True)
        if pool:
            pool.close()
            pool.join()
    print()
    print(summary_table(outcomes, targets))
    if args.malformed:
        print(f"malformed inputs: {args.malformed} checked, {len(malformed)} failing")
    rate = len(outcomes) / elapsed if elapsed > 0 else 0.0
    print(f"{len(outcomes)} kernels in {elapsed:.1f} s ({rate:.2f} kernels/s, {args.jobs} job(s)); "
          f"{len(failing)} failing")
    return 1 if failing or malformed else 0


if __name__ == "__main__":
    sys.exit(main())
