"""The CUDA checks of a campaign kernel (:mod:`tilepipe.fuzz.check`): the CUDA flow to
the scheduled level, the interpreter with its race detector against the source, and the
sampled backends (other hash seeds, ``tilepipe compile`` to PTX, the per-thread NVVM
interpreter)."""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys

import numpy as np
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.utils.exceptions import DiagnosticException

from tilepipe.core.diagnostics import collect_diagnostics, diagnostic_of_exception
from tilepipe.core.verify_memo import verify_module_if_changed
from tilepipe.core.flows import FLOWS
from tilepipe.fuzz.check_run import FILE, CheckRun, _first_diff, _first_line, _Stop, cuda_pipeline


class CudaRun(CheckRun):
    def passes(self, module: ModuleOp) -> None:
        from tilepipe.core.registry import make_context

        ctx = make_context()
        for name, pass_ in FLOWS["cuda"].instances("scheduled"):
            try:
                pass_.apply(ctx, module)
            except DiagnosticException:
                raise
            except Exception as err:  # noqa: BLE001
                self.internal(err, name)
                raise _Stop from None
            if (diagnostic := verify_module_if_changed(module)) is not None:
                self.rejected = True
                self.add("rejected-valid", f"{name} output fails verification: {diagnostic.message}")
                raise _Stop

    def checks(self, module: ModuleOp, printed: str) -> None:
        # ``execute`` gates the interpreter runs only: the sampled backends run on
        # their own (the minimizer turns execution off when chasing one of theirs).
        if self.options.hashseed:
            self.hashseeds(printed)
        try:
            if self.options.execute:
                self.execute(module)
            if self.options.nvvm:
                self.nvvm(module)
        except _Stop:
            pass
        if self.options.ptx:
            self.ptx()

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

    def execute(self, module: ModuleOp) -> None:
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

    def ptx(self) -> None:
        """``tilepipe compile`` to PTX in a child process, with upstream isolated in
        one more (``--isolate-upstream``): an LLVM abort must not take the campaign
        down, and must be reported as the compile error it is, not as a crash of the
        driver.  (A pool worker is daemonic and may not start the isolated child
        itself, hence the subprocess.)"""
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, FILE)
            with open(path, "w") as f:
                f.write(self.text)
            done = subprocess.run(
                [sys.executable, "-m", "tilepipe.drivers.cli", "compile", path, "--target", self.target,
                 "--emit", "ptx", "--isolate-upstream", "-o", os.path.join(folder, "out.ptx")],
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
            self.add("lowering-limit", f"tilepipe compile: {message}")
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
            self.add("lowering-limit", f"lower-to-nvvm: {diagnostic_of_exception(err).message}")
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
