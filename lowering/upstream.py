"""The in-process hand-off to upstream MLIR 22.1.8: target-level IR -> LLVM -> PTX.

tilepipe's ``lower-to-nvvm`` ends in upstream dialects (``gpu``, ``nvgpu``, ``nvvm``,
``memref``, ``vector``, ``scf``, ``arith``, ``llvm``).  From there on, upstream does the
work through its Python bindings (the ``mlir`` package of ``xtc-mlir-python-bindings``):
the xDSL module is printed in generic form, parsed by ``mlir.ir.Module.parse``, and run
through upstream's own conversion passes -- there is no hand-written PTX printer.

Stages (``emit``):

* ``nvvm``  -- the target-level module as upstream parsed and verified it;
* ``llvm``  -- after the conversion to the LLVM dialect (``gpu.module`` of ``llvm.func``
  with NVVM intrinsics), with the ``#nvvm.target`` attached;
* ``ptx``   -- the PTX text of ``gpu-module-to-binary{format=isa}``.

Failures are reported as :class:`UpstreamError` naming the stage, the upstream pass and
the upstream diagnostics, never as a bare binding stack trace.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from tilepipe.targets import CudaTarget

# PTX ISA 8.0 covers everything tilepipe emits (cp.async, ldmatrix, mma.sync,
# mbarrier expect_tx / try_wait.parity) and is accepted by ptxas for sm_80 and sm_90.
PTX_FEATURES = "+ptx80"
LLVM_OPT_LEVEL = 3

# Upstream's conversions, in order.  Each entry is (name shown in errors, pipeline).
CONVERSION_TO_LLVM: tuple[tuple[str, str], ...] = (
    ("convert-nvgpu-to-nvvm", "convert-nvgpu-to-nvvm"),
    ("convert-vector-to-scf", "convert-vector-to-scf"),
    ("convert-scf-to-cf", "convert-scf-to-cf"),
    ("convert-gpu-to-nvvm", "gpu.module(convert-gpu-to-nvvm)"),
    ("convert-nvvm-to-llvm", "convert-nvvm-to-llvm"),
    ("convert-vector-to-llvm", "convert-vector-to-llvm"),
    ("convert-arith-to-llvm", "convert-arith-to-llvm"),
    ("convert-index-to-llvm", "convert-index-to-llvm"),
    ("finalize-memref-to-llvm", "finalize-memref-to-llvm"),
    ("convert-cf-to-llvm", "convert-cf-to-llvm"),
    ("reconcile-unrealized-casts", "reconcile-unrealized-casts"),
    ("canonicalize", "canonicalize"),
)


class Stage(Enum):
    NVVM = "nvvm"
    LLVM = "llvm"
    PTX = "ptx"


class UpstreamError(Exception):
    """Upstream MLIR rejected the module or a conversion failed."""

    def __init__(self, stage: str, message: str):
        super().__init__(f"upstream MLIR failed in {stage}: {message}")
        self.stage = stage
        self.message = message


@dataclass
class UpstreamResult:
    text: str  # the module at the requested stage (PTX text for Stage.PTX)
    pass_seconds: dict[str, float]


def generic_text(module: ModuleOp) -> str:
    """The generic form of an xDSL module: what upstream MLIR parses."""
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def _diagnostic_text(error: Exception) -> str:
    diagnostics = getattr(error, "error_diagnostics", None)
    if not diagnostics:
        return str(error).strip()
    lines = []
    for diagnostic in diagnostics:
        lines.append(f"{diagnostic.location}: {diagnostic.message}")
        for note in diagnostic.notes:
            lines.append(f"  note: {note.message}")
    return "\n".join(lines)


def _target_pipeline(target: CudaTarget) -> str:
    return (
        f"nvvm-attach-target{{chip={target.name} features={PTX_FEATURES} "
        f"O={LLVM_OPT_LEVEL}}}"
    )


def run_upstream(module: ModuleOp | str, target: CudaTarget, stage: Stage) -> UpstreamResult:
    """Parse ``module`` in upstream MLIR and lower it to ``stage``."""
    import time

    from mlir import ir
    from mlir.dialects import gpu
    from mlir.passmanager import PassManager

    text = module if isinstance(module, str) else generic_text(module)
    seconds: dict[str, float] = {}
    with ir.Context():
        start = time.perf_counter()
        try:
            upstream_module = ir.Module.parse(text)
            upstream_module.operation.verify()
        except Exception as error:  # MLIRError: the diagnostics say what and where
            raise UpstreamError("parsing", _diagnostic_text(error)) from None
        seconds["upstream-parse"] = time.perf_counter() - start
        if stage is Stage.NVVM:
            return UpstreamResult(str(upstream_module), seconds)

        steps = [("nvvm-attach-target", _target_pipeline(target)), *CONVERSION_TO_LLVM]
        if stage is Stage.PTX:
            steps.append(("gpu-module-to-binary", "gpu-module-to-binary{format=isa}"))
        for name, pipeline in steps:
            start = time.perf_counter()
            try:
                PassManager.parse(f"builtin.module({pipeline})").run(upstream_module.operation)
            except Exception as error:
                raise UpstreamError(name, _diagnostic_text(error)) from None
            seconds[name] = time.perf_counter() - start
        if stage is Stage.LLVM:
            return UpstreamResult(str(upstream_module), seconds)
        for op in upstream_module.body.operations:
            if op.operation.name == "gpu.binary":
                objects = op.attributes["objects"]
                ptx = gpu.ObjectAttr(objects[0]).object
                return UpstreamResult(ptx.decode(), seconds)
        raise UpstreamError("gpu-module-to-binary", "no gpu.binary was produced")


def run_upstream_isolated(
    module: ModuleOp | str, target: CudaTarget, stage: Stage
) -> UpstreamResult:
    """:func:`run_upstream` in a forked child process.

    LLVM's fatal errors ("LLVM ERROR: Cannot select ...") and the assertion-enabled
    bindings abort the process they happen in; isolated, they become an
    :class:`UpstreamError` carrying upstream's last words instead of killing the
    driver.  Forking costs a few milliseconds.
    """
    import faulthandler
    import multiprocessing
    import os
    import tempfile

    text = module if isinstance(module, str) else generic_text(module)
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    with tempfile.TemporaryFile() as stderr:

        def child() -> None:
            faulthandler.disable()  # upstream's own message is the one to report
            os.dup2(stderr.fileno(), 2)
            try:
                sender.send(("ok", run_upstream(text, target, stage)))
            except UpstreamError as err:
                sender.send(("error", (err.stage, err.message)))

        process = context.Process(target=child)
        process.start()
        sender.close()
        try:
            kind, payload = receiver.recv()
        except EOFError:
            process.join()
            stderr.seek(0)
            last_words = stderr.read().decode(errors="replace").strip().splitlines()[-3:]
            raise UpstreamError(
                "the upstream pipeline",
                f"upstream MLIR/LLVM aborted (exit {process.exitcode}): "
                + " | ".join(last_words),
            ) from None
        process.join()
    if kind == "error":
        raise UpstreamError(*payload)
    return payload
