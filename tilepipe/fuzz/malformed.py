"""Malformed inputs for tilepipe's drivers, and the check that each keeps its promise.

Every driver (``tile-opt``, ``tile-run``, ``tilepipe compile``, ``python -m
tilepipe.lowering.ascend.ascendc``) promises, on any input: no Python traceback; bad input is
exit status 1 with a one-line diagnostic that has a message and, when it is about the
input's text, a ``file:line:col`` location; an internal error says so (``tile-run``: 4,
the others: 2) and is a failure of this check, as is any other status -- except
``tile-run``'s 2 (``--compare-with`` found a difference) and 3 (``--check-races``
found a race), which a mutated kernel may earn honestly.

:func:`malformed_cases` mutates the example and regression kernels (byte flips,
truncation, deleted/duplicated/swapped lines and tokens, non-UTF-8 bytes, deep nesting,
swapped operands, bad attributes/types/memory spaces, unknown ops) and draws bad
command lines (pipelines, pass options, targets, tile-run arguments), spread over the
four drivers.  :func:`check_malformed` runs one case in-process through the driver's
``main(argv)`` -- the console scripts' entry point -- and describes what went wrong,
or returns None.

    python -m tilepipe.fuzz.malformed --seed 1 --count 1000
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tilepipe.core.flows import FLOWS

INPUT = "{input}"
"""Stands for the path of the case's input file in :attr:`MalformedCase.args`."""
OUTPUT = "{output}"
"""Stands for a path to write output to, in a temporary folder."""
COMMAND_LINE = ":command-line"
"""Suffix of the names of cases with a bad command line (not a bad input text)."""

DRIVERS = ("tile-opt", "tile-run", "tilepipe", "ascendc")
ROOT = Path(__file__).resolve().parents[2]
CORPUS_GLOBS = ("examples/*.mlir", "test/regressions/*.mlir", "test/semantics/Inputs/*.mlir")

CUDA_PIPELINE = FLOWS["cuda"].spec("scheduled")
ASCEND_PIPELINE = FLOWS["ascend"].spec()


@dataclass(frozen=True)
class MalformedCase:
    name: str
    data: bytes
    driver: str  # one of DRIVERS
    args: list[str] = field(default_factory=list)  # INPUT marks the input file


# -- the corpus


@cache
def corpus(root: Path = ROOT) -> tuple[tuple[str, str], ...]:
    """(name, text) of the kernels mutations start from, in a fixed order."""
    files = sorted({p for pattern in CORPUS_GLOBS for p in root.glob(pattern)})
    return tuple((p.name, p.read_text()) for p in files)


def _is_ascend(text: str) -> bool:
    return '"ascend910b"' in text or '"ub"' in text


def _grid_rank(text: str) -> int:
    match = re.search(r"tile\.grid = array<i64:([^>]*)>", text)
    return len(match.group(1).split(",")) if match else 1


# -- mutations of the text: each takes (rng, text) and returns bytes

Mutation = Callable[[random.Random, str], bytes]
TOKEN = re.compile(r"%[\w.$-]+|@[\w.$-]+|\"[^\"\n]*\"|[\w.]+|<|>|\[|\]|\{|\}|\(|\)|,|:|=|->")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def flip_bytes(rng: random.Random, text: str) -> bytes:
    data = bytearray(text.encode())
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(32, 127)
    return bytes(data)


def truncate(rng: random.Random, text: str) -> bytes:
    return text.encode()[: rng.randrange(len(text))]


def delete_line(rng: random.Random, text: str) -> bytes:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "".join(lines).encode()


def duplicate_line(rng: random.Random, text: str) -> bytes:
    lines = _lines(text)
    index = rng.randrange(len(lines))
    lines.insert(rng.randrange(len(lines)), lines[index])
    return "".join(lines).encode()


def swap_lines(rng: random.Random, text: str) -> bytes:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "".join(lines).encode()


def _tokens(text: str) -> list[re.Match]:
    code = re.sub(r"//[^\n]*", lambda m: " " * len(m.group()), text)  # not in comments
    return list(TOKEN.finditer(code))


def delete_token(rng: random.Random, text: str) -> bytes:
    token = rng.choice(_tokens(text))
    return (text[: token.start()] + text[token.end():]).encode()


def duplicate_token(rng: random.Random, text: str) -> bytes:
    token = rng.choice(_tokens(text))
    return (text[: token.end()] + " " + token.group() + text[token.end():]).encode()


def swap_operands(rng: random.Random, text: str) -> bytes:
    """Swap two SSA names on one line (operands in the wrong order or of wrong types)."""
    lines = _lines(text)
    candidates = [i for i, line in enumerate(lines) if len(set(re.findall(r"%\w+", line))) > 1]
    if not candidates:
        return flip_bytes(rng, text)
    index = rng.choice(candidates)
    a, b = rng.sample(sorted(set(re.findall(r"%\w+", lines[index]))), 2)
    lines[index] = re.sub(
        rf"{re.escape(a)}\b|{re.escape(b)}\b",
        lambda m: b if m.group() == a else a,
        lines[index],
    )
    return "".join(lines).encode()


def insert_non_utf8(rng: random.Random, text: str) -> bytes:
    data = text.encode()
    at = rng.randrange(len(data) + 1)
    bad = rng.choice([b"\xff", b"\xfe\xff", b"\xc3", b"\xe2\x82", b"\x80", b"\xed\xa0\x80"])
    return data[:at] + bad + data[at:]


def _replace_one(rng: random.Random, text: str, pattern: str, choices: list[str]) -> bytes:
    matches = list(re.finditer(pattern, text))
    if not matches:
        return flip_bytes(rng, text)
    match = rng.choice(matches)
    return (text[: match.start()] + rng.choice(choices) + text[match.end():]).encode()


def bad_attribute(rng: random.Random, text: str) -> bytes:
    return _replace_one(
        rng, text,
        r"num_stages = \d+|tile\.threads = \d+ : i64|tile\.grid = array<i64: [\d, ]+>"
        r"|tile\.target = \"\w+\"|stage = \[[\d, ]*\]|order = \[[\d, ]*\]",
        [
            "num_stages = 0", "num_stages = -1", "num_stages = 99999999999999999999",
            "tile.threads = 33 : i64", "tile.threads = 0 : i64", "tile.threads = 4096 : i64",
            "tile.grid = array<i64: 0>", "tile.grid = array<i64: 1, 2, 3, 4>",
            "tile.grid = array<i32: 1>", 'tile.target = "sm_75"', "tile.target = 80",
            "stage = [0, 1]", "order = [0, 0, 0, 0, 0]", "stage = [-1, 0, 0]",
            "order = [5, 4, 3, 2, 1, 0, 7]", "tile.bogus = 1",
        ],
    )


def bad_type(rng: random.Random, text: str) -> bytes:
    return _replace_one(
        rng, text, r"\b(f16|f32|bf16|index|i64)\b|\d+x\d+x",
        ["f17", "i1", "f64", "index", "f8E4M3FN", "tensor<4xf32>", "0x0x", "1x", "?x", "!tile.bogus"],
    )


def bad_memory_space(rng: random.Random, text: str) -> bytes:
    return _replace_one(
        rng, text, r"\"(shared|fragment|local|gm|ub|l1|l0a|l0b|l0c)\"",
        ['"ub"', '"shared"', '"fragment"', '"l0c"', '"bogus"', "3", '"gm"', "#gpu.address_space<workgroup>"],
    )


def unknown_op(rng: random.Random, text: str) -> bytes:
    return _replace_one(
        rng, text, r"\b(tile|pipeline|memref|arith|scf|func)\.\w+\b",
        ["tile.bogus", "pipeline.nope", "foo.bar", "memref.alloca", "scf.while", "func.call", "tile.gemm", "builtin.module"],
    )


def deep_nesting(rng: random.Random, text: str) -> bytes:
    """A kernel with many nested loops (limits are to be stated, not overflowed)."""
    depth = rng.choice([30, 63, 64, 65, 100, 300, 1000])
    loop = rng.choice(["scf.for", "pipeline.for"])
    suffix = " num_stages = 2" if loop == "pipeline.for" else ""
    lines = [
        "func.func @deep(%A: memref<64xf32>) attributes {tile.grid = array<i64: 1>} {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
    ]
    lines += [f"{loop} %i{n} = %c0 to %c1 step %c1{suffix} {{" for n in range(depth)]
    lines += ["}"] * depth + ["  func.return", "}"]
    return "\n".join(lines).encode()


CONTENT_MUTATIONS: tuple[Mutation, ...] = (
    flip_bytes, truncate, delete_line, duplicate_line, swap_lines, delete_token,
    duplicate_token, swap_operands, insert_non_utf8, bad_attribute, bad_type,
    bad_memory_space, unknown_op, deep_nesting,
)


# -- command lines per driver


def _valid_args(rng: random.Random, driver: str, text: str) -> list[str]:
    ascend = _is_ascend(text)
    if driver == "tile-opt":
        pipeline = ASCEND_PIPELINE if ascend else CUDA_PIPELINE
        return rng.choice([
            [INPUT], [INPUT, "-p", pipeline], [INPUT, "--print-op-generic"],
            [INPUT, "-p", pipeline + ("" if ascend else ",lower-to-nvvm")],
            [INPUT, "--split-input-file", "--verify-diagnostics"],
        ])
    if driver == "tile-run":
        args = [INPUT, "--quiet", "--block", ",".join("0" * _grid_rank(text))]
        if "%n: index" in text:
            args += ["--index-arg", f"n={rng.choice([0, 1, 3])}"]
        if rng.random() < 0.5:
            args.append("--check-races")
        if rng.random() < 0.3:
            args += ["--compare-with", INPUT]
        return args
    if driver == "tilepipe":
        target = "ascend" if ascend else rng.choice(["sm_80", "sm_90", "sm_90a"])
        emit = ["--emit", "ascendc"] if ascend else ["--emit", "nvvm", "--no-ptxas"]
        return ["compile", INPUT, "--target", target, *emit, "-q", "-o", OUTPUT]
    return [INPUT]


BAD_COMMAND_LINES: tuple[tuple[str, list[str]], ...] = (
    ("tile-opt", [INPUT, "-p", "no-such-pass"]),
    ("tile-opt", [INPUT, "-p", "thread-sync{bogus=1}"]),
    ("tile-opt", [INPUT, "-p", "merge-shared-memory{disable-reuse=maybe}"]),
    ("tile-opt", [INPUT, "-p", "pipeline-planning,,thread-sync"]),
    ("tile-opt", [INPUT, "-p", "inject-software-pipeline{"]),
    ("tile-opt", [INPUT, "-p", "lower-to-nvvm,pipeline-planning"]),
    ("tile-opt", [INPUT, "-p", "lower-to-ascend"]),
    ("tile-opt", [INPUT, "-p", "lower-to-nvvm", "-t", "ptx{chip=sm_75}"]),
    ("tile-opt", [INPUT, "-t", "no-such-target"]),
    ("tile-opt", [INPUT, "--no-such-flag"]),
    ("tile-opt", [INPUT + ".missing"]),
    ("tile-run", [INPUT, "--index-arg", "n"]),
    ("tile-run", [INPUT, "--index-arg", "nope=3"]),
    ("tile-run", [INPUT, "--block", "99,99"]),
    ("tile-run", [INPUT, "--block", "x"]),
    ("tile-run", [INPUT, "-f", "no_such_kernel"]),
    ("tile-run", [INPUT, "-i", INPUT]),
    ("tile-run", [INPUT, "--compare-with", INPUT + ".missing"]),
    ("tilepipe", ["compile", INPUT, "--target", "sm_75"]),
    ("tilepipe", ["compile", INPUT, "--target", "sm_80", "--emit", "ascendc"]),
    ("tilepipe", ["compile", INPUT, "--target", "ascend", "--emit", "ptx"]),
    ("tilepipe", ["compile", INPUT, "--num-stages", "0", "--emit", "nvvm", "--no-ptxas", "-q"]),
    ("tilepipe", ["compile", INPUT, "--num-stages", "-3", "--emit", "nvvm", "--no-ptxas", "-q"]),
    ("tilepipe", ["compile", INPUT, "--target", "ascend", "--index-mode", "bogus"]),
    ("tilepipe", ["compile", INPUT + ".missing"]),
    ("tilepipe", ["frobnicate", INPUT]),
    ("ascendc", [INPUT, "--bogus"]),
    ("ascendc", [INPUT + ".missing"]),
)


def malformed_cases(seed: int, count: int) -> Iterator[MalformedCase]:
    """``count`` cases drawn with ``seed`` (the same seed gives the same cases)."""
    rng = random.Random(seed)
    kernels = corpus()
    for number in range(count):
        name, text = kernels[rng.randrange(len(kernels))]
        if rng.random() < 0.15:
            driver, args = rng.choice(BAD_COMMAND_LINES)
            yield MalformedCase(f"{number}:{name}{COMMAND_LINE}", text.encode(), driver, list(args))
            continue
        mutation = rng.choice(CONTENT_MUTATIONS)
        data = mutation(rng, text)
        driver = rng.choice(DRIVERS)
        yield MalformedCase(
            f"{number}:{name}:{mutation.__name__}", data, driver, _valid_args(rng, driver, text)
        )


# -- running a case and checking the promise


class CaseTimeout(BaseException):
    """A case ran past its time limit (a BaseException: no driver may catch it)."""


def _entry_point(driver: str) -> Callable[[list[str]], int]:
    if driver == "tile-opt":
        from tilepipe.drivers.opt import main
    elif driver == "tile-run":
        from tilepipe.drivers.run import main
    elif driver == "tilepipe":
        from tilepipe.drivers.cli import main
    else:
        from tilepipe.drivers.ascendc import main
    return main


@dataclass
class DriverRun:
    status: int
    stdout: str
    stderr: str


def run_case(case: MalformedCase, timeout_s: float = 60.0) -> DriverRun:
    """Run ``case`` through its driver's ``main(argv)`` with captured output."""
    with tempfile.TemporaryDirectory(prefix="tilepipe-malformed-") as tmp:
        path = Path(tmp) / "input.mlir"
        path.write_bytes(case.data)
        argv = [
            a.replace(INPUT, str(path)).replace(OUTPUT, str(Path(tmp) / "out"))
            for a in case.args
        ]
        out, err = io.StringIO(), io.StringIO()

        def expire(signum, frame):
            raise CaseTimeout(f"{case.name} ran longer than {timeout_s} s")

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = _entry_point(case.driver)(argv)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return DriverRun(status, out.getvalue(), err.getvalue())


# A diagnostic, possibly inside a --verify-diagnostics report ("FILE: unexpected DIAG").
LOCATED = re.compile(r"(^|\s)\S+?:\d+:\d+: (error|warning|remark|note): \S")
VERIFY_REPORT = re.compile(r"^\S+: line \d+: expected (error|warning|remark|note) \".+\" was not produced")
# The driver's name, with its subcommand ("tilepipe compile: error: ...") or as it
# was started ("python -m tilepipe.drivers.ascendc: error: ...").
TOOL_ERROR = re.compile(r"^([\w.-]+(?: [\w.-]+)*): (error|warning): \S")
INTERNAL = {"tile-run": 4}


def check_malformed(case: MalformedCase, timeout_s: float = 60.0) -> str | None:
    """What ``case`` shows wrong with its driver, or None when the promise is kept.

    A time-out is not a broken promise (a mutated loop bound may ask for 10^9
    iterations): it returns None too."""
    try:
        run = run_case(case, timeout_s)
    except CaseTimeout:
        return None
    text = run.stdout + run.stderr
    if "Traceback (most recent call last)" in text:
        return f"{case.name}: {case.driver} printed a traceback"
    allowed = {0, 1}
    if case.driver == "tile-run":
        allowed |= {2} if "--compare-with" in case.args else set()
        allowed |= {3} if "--check-races" in case.args else set()
    if run.status not in allowed:
        internal = " (internal error)" if "internal error" in run.stderr else ""
        first = run.stderr.strip().splitlines()[:1]
        return f"{case.name}: {case.driver} exited {run.status}{internal}: {first}"
    if run.status == 1:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        for line in lines:
            if re.search(r"\berror:\s*$|\berror:  ", line):
                return f"{case.name}: an error without a message: {line!r}"
        errors = [
            line for line in lines
            if LOCATED.search(line) or TOOL_ERROR.match(line)
            or VERIFY_REPORT.match(line)
        ]
        if not errors:
            return f"{case.name}: exit 1 without a diagnostic: {lines[:2]}"
        about_text = not case.name.endswith(COMMAND_LINE)
        located = any(LOCATED.search(line) or VERIFY_REPORT.match(line) for line in lines)
        if about_text and not located:
            return f"{case.name}: an error about the input without a location: {errors[0]!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="run malformed inputs through tilepipe's drivers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    args = parser.parse_args(argv)
    failures = 0
    for case in malformed_cases(args.seed, args.count):
        problem = check_malformed(case, args.timeout)
        if problem is not None:
            failures += 1
            print(problem, flush=True)
    print(f"{args.count} cases, {failures} failures", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
