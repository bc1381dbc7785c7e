"""The Ascend checks of a campaign kernel (:mod:`tilepipe.fuzz.check`): the Ascend flow,
the pipe simulator (races, deadlock, flag misuse) against the tile level, and the
sampled AscendC syntax check."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tilepipe.core.diagnostics import verify_module
from tilepipe.fuzz.check_run import CheckRun, _first_line, _Stop


class AscendRun(CheckRun):
    def passes(self, module: ModuleOp) -> None:
        from tilepipe.core.flows import run_flow

        run_flow(module, "ascend")
        if (diagnostic := verify_module(module)) is not None:
            self.rejected = True
            self.add("rejected-valid", f"ascend pipeline output fails verification: {diagnostic.message}")
            raise _Stop

    def checks(self, module: ModuleOp, printed: str) -> None:
        try:
            if self.options.execute:
                self.execute(module)
        except _Stop:
            return
        if self.options.syntax:
            self.syntax(module)

    def execute(self, module: ModuleOp) -> None:
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
