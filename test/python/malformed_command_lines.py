"""A generator of malformed command lines for the drivers: pass pipelines (flat and in
MLIR's nested syntax), pass options, output targets and flags that are wrong by
construction (never valid by accident), each a usage error the drivers must report
as exit status 1 and exactly one line on stderr: tile-opt's pipelines, options and
targets, and tile-run's and tilepipe's (with its subcommands) options and flags."""

from __future__ import annotations

import random
from collections.abc import Iterator

from tilepipe.fuzz.malformed import INPUT, OUTPUT, MalformedCase
from tilepipe.core.flows import FLOWS

PASSES = FLOWS["cuda"].spec(
    options={
        "inject-software-pipeline": "report=text",
        "merge-shared-memory": "disable-reuse=true",
        "lower-to-nvvm": "host-launch=true",
    }
).split(",")

# (pass, option, value of the wrong kind)
BAD_OPTIONS = (
    ("merge-shared-memory", "disable-reuse", "maybe"),
    ("lower-to-nvvm", "swizzle-shared", "2"),
    ("lower-to-nvvm", "host-launch", "yes please"),
    ("ascend-flag-budget", "ids-per-event", "many"),
    ("inject-software-pipeline", "report", "yaml"),
    ("thread-sync", "report", "xml"),
)

TARGETS = (
    "no-such-target", "ptx{chip=sm_75}", "ptx{chip=}", "ptx{", "ptx{chip=sm_80",
    "nvvm-llvm{bogus=1}", "ptx}", "{chip=sm_80}", "ptx{chip=sm_80}{x}", "PTX",
)

FLAGS = (
    ["--no-such-flag"], ["--mlir-print-nothing"], ["-p"], ["-o"], ["--pass-pipeline"],
    ["-t"], ["--split-input-file=3"], ["-z"],
)


def _valid_pipeline(rng: random.Random) -> list[str]:
    return rng.sample(PASSES, rng.randint(1, 4))


def _nested(passes: list[str]) -> str:
    return "builtin.module(func.func(" + ",".join(passes) + "))"


def _structural(rng: random.Random) -> str:
    """A pipeline whose brackets or commas are wrong."""
    passes = _valid_pipeline(rng)
    kind = rng.randrange(10)
    if kind == 0:  # an empty element
        passes.insert(rng.randint(0, len(passes)), "")
        return ",".join(passes)
    if kind == 1:  # an unclosed option block
        return ",".join(passes) + ",thread-sync{report=text"
    if kind == 2:  # a stray closing bracket
        return ",".join(passes) + rng.choice(["}", ")", "))", "]"])
    if kind == 3:  # an unclosed nest
        return _nested(passes)[:-1]
    if kind == 4:  # a nest under an op tilepipe's passes do not anchor on
        return f"builtin.module({rng.choice(['gpu.module', 'scf.for', 'foo'])}({','.join(passes)}))"
    if kind == 5:  # options on an anchor
        return "builtin.module{opt=1}(" + ",".join(passes) + ")"
    if kind == 6:  # punctuation where a pass name goes
        return ",".join(passes) + "," + rng.choice(["=", "{}", "()", "@x", "%p", "\"q\""])
    if kind == 7:  # an unterminated quote in options
        return ",".join(passes) + ',thread-sync{report-file="x}'
    if kind == 8:  # a trailing or leading comma in a nest
        return _nested([""] + passes if rng.random() < 0.5 else passes + [""])
    return "(" + ",".join(passes) + ")"


def _unknown_pass(rng: random.Random) -> str:
    passes = _valid_pipeline(rng)
    index = rng.randrange(len(passes))
    name = passes[index].split("{")[0]
    passes[index] = rng.choice([name + "s", name.replace("-", "_"), "x-" + name, name.upper()])
    return _nested(passes) if rng.random() < 0.5 else ",".join(passes)


def _bad_option(rng: random.Random) -> str:
    passes = _valid_pipeline(rng)
    if rng.random() < 0.5:
        name, option, value = rng.choice(BAD_OPTIONS)
        bad = f"{name}{{{option}={value}}}"
    else:
        name = rng.choice(PASSES).split("{")[0]
        bad = f"{name}{{no-such-option-{rng.randrange(100)}=1}}"
    passes.insert(rng.randint(0, len(passes)), bad)
    return _nested(passes) if rng.random() < 0.5 else ",".join(passes)


# tile-run: (flag, value of the wrong kind); None: the flag without its value
RUN_OPTIONS = (
    ("--index-arg", "n"), ("--index-arg", "n=x"), ("--index-arg", "=3"), ("--block", "x"),
    ("--block", "0,,1"), ("--seed", "abc"), ("--seed", "1.5"), ("--block", None),
    ("--index-arg", None), ("-f", None), ("-i", None), ("--compare-with", None),
)
RUN_FLAGS = (["--no-such-flag"], ["--check-race"], ["-z"], ["--quiet=1"], ["--races"])

# tilepipe: (subcommand, flag, bad value); None: the flag without its value
TILEPIPE_OPTIONS = (
    ("compile", "--target", "sm_75"), ("compile", "--target", "SM_80"),
    ("compile", "--target", "ascend910"), ("compile", "--emit", "sass"),
    ("compile", "--emit", "PTX"), ("compile", "--num-stages", "two"),
    ("compile", "--num-stages", "2.5"), ("compile", "--index-mode", "cycle"),
    ("compile", "--target", None), ("compile", "--emit", None), ("compile", "-o", None),
    ("compile", "--emit", "ascendc"),  # not an emit for the default sm_80
    ("tune", "--target", "sm_75"), ("tune", "-j", "many"), ("tune", "--num-stages", "1-"),
    ("tune", "--num-stages", "x"), ("tune", "--num-stages", "3-1"),
    ("tune", "--index-args", "n"), ("tune", "-o", None),
)
TILEPIPE_COMMANDS = (
    [], ["compile"], ["tune"], ["frobnicate", INPUT], ["Compile", INPUT], ["--bogus"],
    ["compile", INPUT, "--no-such-flag"], ["tune", INPUT, "--no-such-flag"],
    ["compile", INPUT, INPUT], ["compile", INPUT, "-q=1"],
)


def _tile_run(rng: random.Random) -> list[str]:
    if rng.random() < 0.3:
        return [INPUT, *rng.choice(RUN_FLAGS)]
    flag, value = rng.choice(RUN_OPTIONS)
    # A valid option in front: the bad one is found wherever it stands.
    prefix = rng.choice([[], ["--quiet"], ["--seed", "3"], ["--check-races"]])
    return [INPUT, *prefix, flag] if value is None else [INPUT, *prefix, flag, value]


def _tilepipe(rng: random.Random) -> list[str]:
    if rng.random() < 0.3:
        return list(rng.choice(TILEPIPE_COMMANDS))
    command, flag, value = rng.choice(TILEPIPE_OPTIONS)
    prefix = rng.choice([[], ["-q"], ["--no-ptxas"]] if command == "compile" else [[], ["--no-ptxas"]])
    args = [command, INPUT, *prefix, flag]
    return args if value is None else [*args, value]


def malformed_command_lines(seed: int, count: int) -> Iterator[MalformedCase]:
    """``count`` distinct command lines of tile-opt, tile-run and tilepipe (the same
    ``seed`` gives the same ones)."""
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    while len(seen) < count:
        kind = rng.randrange(7)
        driver = "tile-opt"
        pipeline_flag = rng.choice(["-p", "--pass-pipeline"])
        if kind == 0:
            args = [INPUT, pipeline_flag, _structural(rng)]
        elif kind == 1:
            args = [INPUT, pipeline_flag, _unknown_pass(rng)]
        elif kind == 2:
            args = [INPUT, pipeline_flag, _bad_option(rng)]
        elif kind == 3:
            args = [INPUT, "-p", "lower-to-nvvm", "-t", rng.choice(TARGETS)]
        elif kind == 4:
            args = [INPUT, "-o", OUTPUT, *rng.choice(FLAGS)]
        elif kind == 5:
            driver, args = "tile-run", _tile_run(rng)
        else:
            driver, args = "tilepipe", _tilepipe(rng)
        if (driver, *args) not in seen:
            seen.add((driver, *args))
            yield MalformedCase(f"{len(seen)}:command-line", b"", driver, args)
