"""``python -m tilepipe.drivers.ascendc``: print an ascend-dialect module (the output
of ``lower-to-ascend`` and ``ascend-flag-budget``) as AscendC source (docs/ascend.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from tilepipe.drivers.command_line import DriverArgumentParser, run_driver
from tilepipe.lowering.ascend.ascendc import emit_ascendc, report_syntax_check


def parse_module_file(path: str) -> ModuleOp:
    """Parse ``path`` with xDSL's and tilepipe's dialects, located and verified."""
    from xdsl.context import Context
    from xdsl.dialects import get_all_dialects as xdsl_dialects

    from tilepipe.core.diagnostics import InputError
    from tilepipe.core.registry import get_all_dialects
    from tilepipe.core.source import functions_with_one_block, parse_source, read_source

    ctx = Context()
    for name, factory in {**xdsl_dialects(), **get_all_dialects()}.items():
        ctx.register_dialect(name, factory)
    module = parse_source(read_source(path), path, ctx)
    if (diagnostic := functions_with_one_block(module)) is not None:
        raise InputError(diagnostic)
    return module


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tilepipe.drivers.ascendc``; returns the exit status."""

    parser = DriverArgumentParser(
        prog="python -m tilepipe.drivers.ascendc",
        description="Print an ascend-dialect kernel (the output of lower-to-ascend and "
        "ascend-flag-budget) as AscendC C++ source.",
    )
    parser.add_argument("input", help="ascend-dialect module (.mlir)")
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    parser.add_argument(
        "--syntax-check", action="store_true",
        help="check the source with g++ -fsyntax-only against the declarations-only stub",
    )
    parser.add_argument(
        "--show-traceback", action="store_true",
        help="on an internal error, print the Python traceback",
    )
    return run_driver("tilepipe.drivers.ascendc", argv, parser.parse_args, _emit_file)


def _emit_file(args: argparse.Namespace) -> int:
    source = emit_ascendc(parse_module_file(args.input))
    if args.output:
        Path(args.output).write_text(source)
    else:
        sys.stdout.write(source)
    if args.syntax_check and not report_syntax_check(source):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
