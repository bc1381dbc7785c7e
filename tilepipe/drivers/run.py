"""``tile-run``: run a tile kernel with the reference interpreter.

::

    tile-run kernel.mlir                          # seeded random inputs, print outputs
    tile-run kernel.mlir -i in.npz -o out.npz     # given inputs, save outputs
    tile-run kernel.mlir --check-races            # exit 3 and a report on a race
    tile-run kernel.mlir --compare-with other.mlir --index-arg n=17
    tile-run kernel.mlir --check-races --compare-with other.mlir --index-arg n=0,1,2,7
    tile-run gemm_dynamic.mlir --shape A=1000x77 --shape B=77x129 --shape C=1000x129
    tile-run kernel.mlir --block 0,1 --block 1,1  # only these blocks

Exit status (also in ``--help``):

* 0: the kernel ran (no race, and with ``--compare-with`` identical outputs);
* 1: bad input or a kernel error: an MLIR-style located diagnostic;
* 2: ``--compare-with`` found a difference (and no race was found);
* 3: ``--check-races`` found a race; a difference found as well is printed too, but
  the status stays 3, since a race can explain any difference;
* 4: an internal error of tilepipe (``--show-traceback`` shows where).

``--index-arg n=0,1,2,7`` runs the kernel once per value (several such arguments: once
per combination), parsing the kernels once; each run's findings are prefixed with its
values and the status is that of the worst run.  This is how the regression tests check
a transformed kernel on many trip counts.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import zipfile
from collections.abc import Sequence

import numpy as np

from tilepipe.semantics.compare import first_difference
from tilepipe.drivers.command_line import DriverArgumentParser, run_driver
from tilepipe.dialects.pipeline_sync import PIPELINE_SYNC_OPS
from tilepipe.semantics import execute, load_module
from tilepipe.semantics.work_limit import DEFAULT_MAX_STEPS
from tilepipe.core.source import read_source, shape_assignment

EXIT_ERROR, EXIT_MISMATCH, EXIT_RACE, EXIT_INTERNAL = 1, 2, 3, 4
EXIT_STATUSES = """exit status:
  0  the kernel ran (no race; with --compare-with, identical outputs)
  1  bad input or a kernel error (a located diagnostic)
  2  --compare-with found a difference and no race was found
  3  --check-races found a race (a difference found too is also printed)
  4  internal error (--show-traceback shows where)"""


def _block(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a block like 0,1 got '{text}'") from None


def _index_values(text: str) -> tuple[str, tuple[int, ...]]:
    """``n=17`` or a sweep ``n=0,1,2,7``."""
    name, sep, values = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name.lstrip("%"), tuple(int(value, 0) for value in values.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected NAME=INTEGER or NAME=V1,V2,..., got '{text}'"
        ) from None


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = DriverArgumentParser(
        prog="tile-run",
        description="Run a tile kernel with tilepipe's interpreter.",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("input_file", help="the kernel (.mlir); '-' reads stdin")
    parser.add_argument("-f", "--func", help="the kernel to run (default: the only one)")
    parser.add_argument("-i", "--inputs", help=".npz with input arrays by argument name")
    parser.add_argument("-o", "--output", help="save the outputs to this .npz ('-': stdout)")
    parser.add_argument("--seed", type=int, default=0, help="seed of random inputs")
    parser.add_argument(
        "--block", type=_block, action="append", help="run only this block (repeatable)"
    )
    parser.add_argument(
        "--index-arg", type=_index_values, action="append", default=[],
        help="value of a scalar argument, NAME=VALUE (repeatable); NAME=V1,V2,... "
        "runs the kernel once per value",
    )
    parser.add_argument(
        "--shape", type=shape_assignment, action="append", default=[],
        help="sizes of a dynamically shaped memref argument, NAME=D0xD1... (repeatable; "
        "default: the shape of its input array)",
    )
    parser.add_argument(
        "--check-races", action="store_true", help="run the happens-before race detector"
    )
    parser.add_argument(
        "--compare-with", metavar="OTHER.mlir",
        help="also run OTHER on the same inputs and require bit-identical outputs",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="do not print the output arrays"
    )
    parser.add_argument(
        "--max-steps", type=_non_negative, metavar="N", default=None,
        help="loop iterations the run may execute, all loops and blocks together "
        f"(default {DEFAULT_MAX_STEPS}); a loop that would go past it is an error at "
        "the loop",
    )
    parser.add_argument(
        "--show-traceback", action="store_true",
        help="on an internal error, print the Python traceback",
    )
    return parser


def _type_name(dtype: np.dtype) -> str:
    return f"{'f' if dtype.kind == 'f' else 'i'}{dtype.itemsize * 8}"


def _print_outputs(outputs: dict[str, np.ndarray]) -> None:
    with np.printoptions(threshold=64, edgeitems=3, linewidth=100):
        for name, array in outputs.items():
            shape = "x".join(str(d) for d in (*array.shape, _type_name(array.dtype)))
            print(f"%{name}: {shape}")
            print(array)


UNSYNCHRONIZED_NOTE = (
    "tile-run: note: this kernel has no synchronization ops: a tile-level program is "
    "sequential by definition, and its threads race until thread-sync inserts barriers "
    "and waits; check the compiled kernel instead: "
    "tile-opt {kernel} -p cuda:scheduled | tile-run - --check-races"
)


def run(args: argparse.Namespace) -> int:
    inputs = None
    if args.inputs:
        try:
            with np.load(args.inputs) as data:
                inputs = {name: data[name] for name in data.files}
        except (OSError, ValueError, zipfile.BadZipFile) as err:
            print(f"tile-run: error: cannot read inputs {args.inputs}: {err}", file=sys.stderr)
            return EXIT_ERROR
    for flag, given in (("--index-arg", args.index_arg), ("--shape", args.shape)):
        names = [name for name, _ in given]
        twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
        if twice is not None:  # the last would silently win
            print(f"tile-run: error: argument {flag}: '{twice}' is given twice", file=sys.stderr)
            return EXIT_ERROR
    sweep = [
        dict(zip([name for name, _ in args.index_arg], values))
        for values in itertools.product(*(values for _, values in args.index_arg))
    ]
    if len(sweep) > 1 and args.output:
        print("tile-run: error: -o saves one run's outputs; give each --index-arg one "
              "value", file=sys.stderr)
        return EXIT_ERROR
    options = dict(
        func_name=args.func, inputs=inputs, seed=args.seed, blocks=args.block,
        check_races=args.check_races, shapes=dict(args.shape), max_steps=args.max_steps,
    )
    # Bad kernels and inputs (KernelError, InputError) are reported by run_driver.
    kernel = load_module(read_source(args.input_file), args.input_file)
    reference = None
    if args.compare_with:
        reference = load_module(read_source(args.compare_with), args.compare_with)
    status = 0
    for index_args in sweep:
        prefix = ""
        if len(sweep) > 1:
            prefix = " ".join(f"{name}={value}" for name, value in index_args.items()) + ": "
        try:
            run_status = _run_once(args, kernel, reference, index_args, options, prefix)
        except Exception:
            if prefix:  # the diagnostic that follows is about this run
                print(f"tile-run: in the run with {prefix.rstrip(': ')}:", file=sys.stderr)
            raise
        if run_status == EXIT_ERROR:
            return EXIT_ERROR
        status = max(status, run_status)  # a race (3) outranks a difference (2)
    return status


def _run_once(args, kernel, reference, index_args, options, prefix: str) -> int:
    result = execute(kernel, file_name=args.input_file, index_args=index_args, **options)
    other = None
    if reference is not None:  # the reference is run, not race-checked
        other = execute(
            reference, file_name=args.compare_with, index_args=index_args,
            **{**options, "check_races": False},
        )

    status = 0
    for race in result.races:
        print(f"{prefix}{race}", file=sys.stderr)
    if result.races:
        print(f"tile-run: {prefix}{len(result.races)} race(s) found", file=sys.stderr)
        if not any(type(op) in PIPELINE_SYNC_OPS for op in kernel.walk()):
            print(UNSYNCHRONIZED_NOTE.format(kernel=args.input_file), file=sys.stderr)
        status = EXIT_RACE
    if other is not None:
        difference = first_difference(
            result.outputs, other.outputs, args.input_file, args.compare_with
        )
        if difference is not None:
            print(f"tile-run: error: {prefix}{difference}", file=sys.stderr)
            status = status or EXIT_MISMATCH
        elif not args.quiet:
            names = ", ".join(f"%{name}" for name in result.outputs)
            print(f"tile-run: {prefix}outputs are identical ({names})")
    if args.output:
        # '-' is stdout, as everywhere (np.savez would write a file named '-.npz').
        target = sys.stdout.buffer if args.output == "-" else args.output
        try:
            np.savez(target, **result.outputs)
        except OSError as err:
            print(f"tile-run: error: cannot write {args.output}: {err.strerror}", file=sys.stderr)
            return EXIT_ERROR
    elif not args.quiet and other is None:
        if prefix:
            print(f"tile-run: {prefix.rstrip(': ')}")
        _print_outputs(result.outputs)
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """``tile-run``; returns the exit status (see :data:`EXIT_STATUSES`)."""
    return run_driver(
        "tile-run", argv, build_parser().parse_args, run, internal_status=EXIT_INTERNAL
    )


if __name__ == "__main__":
    sys.exit(main())
