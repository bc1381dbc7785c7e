"""``tile-opt``: xDSL's opt driver with tilepipe's dialects and passes.

Beyond ``xdsl-opt`` it gives what an ``mlir-opt`` user expects:

* ops keep their source location, so errors read ``file:line:col: error: 'op' op ...``
  and bad input exits with status 1 and one diagnostic, never a Python traceback;
* ``--verify-diagnostics`` checks ``// expected-error @+1 {{...}}`` annotations
  (also warnings, remarks and notes) like ``mlir-opt`` and fails on any mismatch;
* ``--print-between-passes`` / ``--mlir-print-ir-after-all`` dumps the IR after each
  pass to stderr (like TileLang's ``TL_LOWER_TRACE``);
* ``--list-passes`` lists the passes with their one-line descriptions and options.
"""

from __future__ import annotations

import argparse
import inspect
import sys
import time
from importlib.util import find_spec
from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tilepipe.core.diagnostics import Diagnostic, InputError, collect_diagnostics, diagnostic_of_exception, verify_module
from tilepipe.drivers.command_line import expected_diagnostics, match_expected, one_line_usage_errors, print_diagnostic, run_driver, spec_error_message
from tilepipe.drivers.pipeline_spec import PipelineSpecError, normalize_pipeline
from tilepipe.core.registry import get_all_passes, register_dialects
from tilepipe.core.source import (
    LocatingParser,
    functions_with_one_block,
    parse_source,
    read_source,
)

__all__ = ["InputError", "LocatingParser", "TileOptMain", "main"]


class TileOptMain(xDSLOptMain):
    version_format = "tile-opt (tilepipe) built on xdsl {xdsl_version}"

    def register_all_dialects(self):
        # Not super()'s: it would register xDSL's gpu dialect, which tilepipe's
        # (upstream's gpu.func and gpu.dynamic_shared_memory) replaces.
        from xdsl.universe import Universe

        register_dialects(self.ctx, Universe.get_multiverse().all_dialects)

    def register_all_passes(self):
        super().register_all_passes()
        # tile-opt verifies between passes itself: the plain passes, not the
        # universe's self-verifying ones.
        self.available_passes.update(get_all_passes())

    def register_all_targets(self):
        # The multiverse holds tilepipe's targets too (registry.TARGETS).
        super().register_all_targets()
        # -t (and --help) offer only the targets whose dependencies are installed;
        # probing by import would load every backend at each start.
        for name, module in OPTIONAL_TARGET_MODULES.items():
            if name in self.available_targets and find_spec(module) is None:
                del self.available_targets[name]

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        # One name however it is started (tile-opt, python -m tilepipe, xdsl's runner).
        arg_parser.prog = "tile-opt"
        one_line_usage_errors(arg_parser)
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="list tilepipe's passes and exit",
        )
        arg_parser.add_argument(
            "--pass-pipeline",
            dest="passes",
            default=argparse.SUPPRESS,
            help="the pass pipeline in MLIR's syntax, e.g. "
            "'builtin.module(func.func(pipeline-planning),thread-sync)' "
            "(-p takes the same, or a flat list)",
        )
        for alias, dest, original in (
            ("--mlir-print-ir-after-all", "print_between_passes", "--print-between-passes"),
            ("--mlir-print-op-generic", "print_op_generic", "--print-op-generic"),
            ("--mlir-print-debuginfo", "print_debuginfo", "--print-debuginfo"),
        ):
            arg_parser.add_argument(
                alias, dest=dest, action="store_true", default=argparse.SUPPRESS,
                help=f"alias of {original}",
            )
        _rewrite_help(arg_parser)
        arg_parser.add_argument(
            "--show-traceback",
            action="store_true",
            help="on an internal compiler error, print the Python traceback",
        )

    # -- pipeline with located verification and an IR trace on stderr

    def setup_pipeline(self):
        timer = [time.perf_counter()]

        def callback(
            previous_pass: ModulePass | None,
            module: ModuleOp,
            next_pass: ModulePass | None,
        ) -> None:
            if self.args.time_passes and previous_pass is not None:
                elapsed = time.perf_counter() - timer[0]
                print(f"Pass {previous_pass.name} took {elapsed:.6f} seconds", file=sys.stderr)
            if not self.args.disable_verify:
                if (diagnostic := verify_module(module)) is not None:
                    raise InputError(diagnostic)
            if previous_pass is not None and self.args.print_between_passes:
                print(
                    f"// -----// IR Dump After {previous_pass.name} //----- //",
                    file=sys.stderr,
                )
                Printer(stream=sys.stderr).print_op(module)
                print("\n", file=sys.stderr)
            timer[0] = time.perf_counter()

        try:
            spec = normalize_pipeline(self.args.passes)
            self.pipeline = PassPipeline.parse_spec(self.available_passes, spec, callback)
        except (ValueError, TypeError, ParseError, ArgSpecParseError) as err:
            # An unknown pass or option is a usage error, not an internal one.
            message = (
                spec_error_message(err) if isinstance(err, ArgSpecParseError) else err
            )
            print(f"tile-opt: error: bad pass pipeline '{self.args.passes}': {message}",
                  file=sys.stderr)
            sys.exit(1)

    # -- driver

    def get_input_name(self) -> str:
        name = self.args.input_file
        return "<stdin>" if name in (None, "-") else name

    def _read_input(self) -> str:
        return read_source(self.args.input_file or "-")

    def _parse(self, text: str, line_offset: int) -> ModuleOp:
        return parse_source(
            text,
            self.get_input_name(),
            self.ctx,
            line_offset=line_offset,
            implicit_module=not self.args.no_implicit_module,
        )

    def _process_chunk(self, text: str, line_offset: int) -> tuple[str, list[Diagnostic]]:
        """Parse, verify, run the pipeline; return (output IR, diagnostics)."""
        with collect_diagnostics() as collector:
            try:
                module = self._parse(text, line_offset)
                if self.pipeline.passes and (
                    diagnostic := functions_with_one_block(module)
                ) is not None:
                    raise InputError(diagnostic)
                self.apply_passes(module)
                # Output targets past MLIR (-t ptx) can fail too, with a diagnostic.
                output = self.output_resulting_program(module)
            except InputError as err:
                return "", [*collector.diagnostics, err.diagnostic]
            except DiagnosticException as err:
                return "", [*collector.diagnostics, diagnostic_of_exception(err)]
            return output, collector.diagnostics

    def _chunks(self) -> list[tuple[str, int]]:
        text = self._read_input()
        if not self.args.split_input_file:
            return [(text, 0)]
        chunks: list[tuple[str, int]] = []
        offset = 0
        for chunk in text.split("// -----"):
            chunks.append((chunk, offset))
            offset += chunk.count("\n")
        return chunks

    def _check_target_arguments(self) -> None:
        """Bad ``-t name{args}`` arguments are a usage error, like a bad pipeline."""
        try:
            # One name with options, nothing after it: xDSL's parse_spec stops at the
            # first complete spec and ignores the rest.
            if "," in normalize_pipeline(self.args.target) or "(" in self.args.target:
                raise PipelineSpecError("expected one target")
            spec = parse_spec(self.args.target)
        except PipelineSpecError as err:
            print(f"tile-opt: error: bad target '{self.args.target}': {err}", file=sys.stderr)
            sys.exit(1)
        except ArgSpecParseError as err:
            print(f"tile-opt: error: bad target '{self.args.target}': "
                  f"{spec_error_message(err)}", file=sys.stderr)
            sys.exit(1)
        entry = self.available_targets.get(spec.name)
        if entry is None:
            known = ", ".join(sorted(self.available_targets))
            print(f"tile-opt: error: unknown target '{spec.name}' (available: {known})",
                  file=sys.stderr)
            sys.exit(1)
        if inspect.signature(entry).parameters:
            return  # an xDSL target of the old kind takes no arguments
        try:
            entry().from_spec(spec)
        except ImportError as err:
            print(f"tile-opt: error: target '{spec.name}' is not usable here: {err}",
                  file=sys.stderr)
            sys.exit(1)
        except (ValueError, TypeError) as err:
            print(f"tile-opt: error: bad target '{self.args.target}': {err}", file=sys.stderr)
            sys.exit(1)

    def run(self) -> int:
        if self.args.list_passes:
            print_pass_list(self.available_passes)
            return 0
        self._check_target_arguments()
        output = StringIO()
        failed = False
        for index, (text, line_offset) in enumerate(self._chunks()):
            if index > 0:
                output.write("// -----\n")
            ir, diagnostics = self._process_chunk(text, line_offset)
            output.write(ir)
            if self.args.verify_diagnostics:
                problems = match_expected(
                    expected_diagnostics(text, line_offset), diagnostics
                )
                for problem in problems:
                    print(f"{self.get_input_name()}: {problem}", file=sys.stderr)
                failed |= bool(problems)
            else:
                for diagnostic in diagnostics:
                    print_diagnostic("tile-opt", diagnostic)
                failed |= any(d.severity == "error" for d in diagnostics)
        if self.args.output_file in (None, "-"):  # '-' is stdout, as in mlir-opt
            sys.stdout.write(output.getvalue())
        else:
            with open(self.args.output_file, "w") as f:
                f.write(output.getvalue())
        return 1 if failed else 0


OPTIONAL_TARGET_MODULES = {"llvm": "llvmlite"}
"""xDSL output targets that need a package xDSL does not depend on."""

HELP_TEXTS = {
    "--verify-diagnostics": "check the input's '// expected-error @+1 {{...}}' "
    "annotations (also warnings, remarks, notes) against the diagnostics, like mlir-opt; "
    "exit 1 on any mismatch",
    "--output-file": "write the output here ('-' or none: stdout)",
    "--passes": "the pass pipeline: a flat list 'a,b{opt=1}' or MLIR's nested "
    "'builtin.module(func.func(a))' syntax",
}
"""``--help`` texts of xDSL's options that say what tile-opt does with them."""


def _rewrite_help(parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:
        for flag in action.option_strings:
            if flag in HELP_TEXTS:
                action.help = HELP_TEXTS[flag]


def _pass_options(pass_class: type[ModulePass]) -> str:
    """``name=default`` of a pass's options, spelled as a pipeline takes them."""
    import dataclasses

    def spelled(value: object) -> str:
        if isinstance(value, bool):
            return str(value).lower()
        return "" if value is None else str(value)

    return ", ".join(
        f"{field.name.replace('_', '-')}={spelled(field.default)}"
        for field in dataclasses.fields(pass_class)
        if field.default is not dataclasses.MISSING
    )


def print_pass_list(passes) -> None:
    tilepipe_passes = get_all_passes()
    print("tilepipe passes:")
    for name in sorted(tilepipe_passes):
        pass_class = tilepipe_passes[name]()
        doc = (pass_class.__doc__ or "").strip().splitlines()
        print(f"  {name:32s} {doc[0] if doc else ''}")
        options = _pass_options(pass_class)
        if options:
            print(f"  {'':32s}   options: {options}")
    others = sorted(set(passes) - set(tilepipe_passes))
    print(f"xDSL passes ({len(others)}): " + ", ".join(others))
    from tilepipe.lowering.nvvm.output_targets import UPSTREAM_TARGETS

    print("tilepipe output targets (-t, after lower-to-nvvm):")
    for name, target in sorted(UPSTREAM_TARGETS.items()):
        doc = (target.__doc__ or "").strip().splitlines()
        print(f"  {name + '{chip=sm_80|sm_90}':32s} {doc[0] if doc else ''}")


def main(args: Sequence[str] | None = None) -> int:
    """``tile-opt``; returns the exit status (see :func:`run_driver`)."""
    return run_driver(
        "tile-opt",
        args,
        lambda argv: TileOptMain(
            description="tilepipe modular optimizer driver: parses a module, runs the pass "
            "pipeline given with -p and prints the result, like mlir-opt.",
            args=argv,
        ),
        lambda driver: driver.run(),
    )


if __name__ == "__main__":
    sys.exit(main())
