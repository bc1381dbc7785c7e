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

The module texts carry the ops' locations on request (``debug_info``, what upstream's
``--mlir-print-debuginfo`` prints): the lowering gives each lowered op the location
of the tile op it came from, and upstream's conversions keep it, so a host that
parses the text gets diagnostics at the kernel's source lines.

Failures are reported as :class:`UpstreamError` naming the stage, the upstream pass and
the upstream diagnostics, never as a bare binding stack trace.

The hand-off runs in the caller's process: no child is forked, which multi-threaded
hosts (PyTorch, JAX) and Windows need.  :class:`UpstreamProcess` and
:func:`run_upstream_isolated` run it in a *spawned* child instead, for a driver that
must survive upstream aborting (LLVM fatal errors, assertions of the bindings).

:func:`handoff_pipeline` is the same sequence of upstream passes as one pass-pipeline
string, for a host that runs them itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from tilepipe.core.targets import CudaTarget
from tilepipe.dialects.tensor_maps import SHARED_ALIGNMENT_ATTR, TENSOR_MAPS_ATTR
from tilepipe.lowering.nvvm.host_tensor_maps import pass_maps_by_value

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
    # convert-vector-to-llvm's own pre-lowerings (shape casts, strided slices) can
    # leave ub.poison; lower-to-nvvm no longer emits those ops, but the pass is cheap.
    ("convert-ub-to-llvm", "convert-ub-to-llvm"),
    # Views with offsets or strides (subview, reinterpret_cast of a tile) become plain
    # descriptor arithmetic (affine, then arith) before memrefs become LLVM structs.
    ("expand-strided-metadata", "expand-strided-metadata"),
    ("lower-affine", "lower-affine"),
    ("convert-arith-to-llvm", "convert-arith-to-llvm"),
    ("convert-index-to-llvm", "convert-index-to-llvm"),
    ("finalize-memref-to-llvm", "finalize-memref-to-llvm"),
    ("convert-cf-to-llvm", "convert-cf-to-llvm"),
    ("reconcile-unrealized-casts", "reconcile-unrealized-casts"),
    ("canonicalize", "canonicalize"),
)


BINARY_PIPELINE = "gpu-module-to-binary{format=isa}"

HANDOFF_PIPELINE = "builtin.module(" + ",".join(p for _, p in CONVERSION_TO_LLVM) + ")"
"""The target-independent part of the hand-off: upstream's conversions to the LLVM
dialect, as one pass pipeline (:func:`handoff_pipeline` adds the target and PTX)."""

HOST_PIPELINE = "builtin.module(gpu-to-llvm,reconcile-unrealized-casts)"
"""What a host runs after :func:`handoff_pipeline` on a module with host launchers
(``host_launch``): their ``func.func`` and ``gpu.launch_func`` become LLVM calls of
the CUDA runtime wrappers (``mgpuLaunchKernel``, ...), ready for an ExecutionEngine.
The hand-off itself never runs it: tilepipe's output is the kernel's PTX."""


class Stage(Enum):
    NVVM = "nvvm"
    LLVM = "llvm"
    PTX = "ptx"


STAGE_ORDER = (Stage.NVVM, Stage.LLVM, Stage.PTX)


class UpstreamError(Exception):
    """Upstream MLIR rejected the module or a conversion failed."""

    def __init__(self, stage: str, message: str):
        super().__init__(f"upstream MLIR failed in {stage}: {message}")
        self.stage = stage
        self.message = message


@dataclass
class UpstreamResult:
    texts: dict[Stage, str]  # the module at each requested stage (PTX: the PTX text)
    pass_seconds: dict[str, float]

    @property
    def text(self) -> str:
        """The text of the furthest stage requested."""
        return self.texts[max(self.texts, key=STAGE_ORDER.index)]


def generic_text(module: ModuleOp) -> str:
    """The generic form of an xDSL module, with its ops' source locations: what
    upstream MLIR parses (and names in its diagnostics)."""
    out = StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(module)
    return out.getvalue()


NOTE_CHARACTERS = 240  # upstream's "see current operation" notes print whole modules


def _location_text(location: object) -> str:
    """``loc("kernel.mlir":30:5)`` as ``kernel.mlir:30:5``, as tilepipe spells it."""
    text = str(location)
    match = re.fullmatch(r'loc\("(.*)":(\d+):(\d+)\)', text)
    return f"{match[1]}:{match[2]}:{match[3]}" if match else text


def _diagnostic_text(error: Exception) -> str:
    diagnostics = getattr(error, "error_diagnostics", None)
    if not diagnostics:
        return str(error).strip()
    lines = []
    for diagnostic in diagnostics:
        lines.append(f"{_location_text(diagnostic.location)}: {diagnostic.message}")
        for note in diagnostic.notes:
            message = note.message.strip()
            first = message.splitlines()[0] if message else ""
            if len(first) > NOTE_CHARACTERS or first != message:
                first = first[:NOTE_CHARACTERS] + " ..."
            lines.append(f"  note: {first}")
    return "\n".join(lines)


def _target_pipeline(target: CudaTarget) -> str:
    return (
        f"nvvm-attach-target{{chip={target.name} features={PTX_FEATURES} "
        f"O={LLVM_OPT_LEVEL}}}"
    )


def _handoff_steps(target: CudaTarget, last: Stage) -> list[tuple[str, str]]:
    """The passes from the nvvm level to ``last``, each as (name shown in errors,
    pipeline): what :func:`run_upstream` runs and :func:`handoff_pipeline` prints."""
    if last is Stage.NVVM:
        return []
    steps = [("nvvm-attach-target", _target_pipeline(target)), *CONVERSION_TO_LLVM]
    if last is Stage.PTX:
        steps.append(("gpu-module-to-binary", BINARY_PIPELINE))
    return steps


def handoff_pipeline(target: CudaTarget | str, stage: Stage | str = Stage.PTX) -> str:
    """The pass pipeline (``builtin.module(...)``) that takes a ``lower-to-nvvm``
    module to ``stage`` for ``target`` (a :class:`CudaTarget` or its name, ``sm_80``):
    ``nvvm-attach-target`` with tilepipe's chip, PTX features and LLVM ``O``, then
    upstream's conversions, then (for ``ptx``) ``gpu-module-to-binary``.  These are the
    passes :func:`run_upstream` runs, one at a time so that a failure names its pass;
    a host that parses the nvvm level in its own context can run them itself."""
    if isinstance(target, str):
        from tilepipe.core.targets import TARGETS

        named = TARGETS.get(target)
        if not isinstance(named, CudaTarget):
            raise ValueError(f"'{target}' is not a CUDA target")
        target = named
    stage = Stage(stage)
    if stage is Stage.NVVM:
        raise ValueError("the nvvm stage is the hand-off's input: no passes lead to it")
    return "builtin.module(" + ",".join(p for _, p in _handoff_steps(target, stage)) + ")"


def mark_tensor_map_parameters(upstream_module, ir=None) -> int:
    """Make the tensor-map inputs of each kernel ``__grid_constant__`` parameters:
    ``llvm.byval = !llvm.array<128 x i8>``, ``llvm.align = 64``,
    ``nvvm.grid_constant`` on the last inputs of each ``llvm.func`` that carries
    ``tilepipe.tensor_maps`` (``lowering/nvvm/tensor_maps.py``), so that the PTX takes
    ``.param .align 64 .b8 map[128]`` and its address (``cvta.param``), as a CUDA
    kernel taking ``const __grid_constant__ CUtensorMap`` does.  Runs on upstream's
    module right after ``convert-gpu-to-nvvm``, which keeps neither attribute from a
    ``gpu.func`` (a host running :func:`handoff_pipeline` itself calls it there too);
    the host launchers' ``gpu.launch_func`` then pass those maps by value
    (``host_tensor_maps.pass_maps_by_value``).  Returns the number of parameters
    marked."""
    if ir is None:
        ir, _, _ = _import_bindings()
    marked = 0
    map_counts: dict[str, int] = {}  # "module::kernel" -> its map inputs
    for module_op in upstream_module.body.operations:
        if module_op.operation.name != "gpu.module":
            continue
        module_name = ir.StringAttr(module_op.attributes["sym_name"]).value
        module_marked = marked
        alignment = 0
        for op in module_op.regions[0].blocks[0].operations:
            if op.operation.name == "llvm.func" and SHARED_ALIGNMENT_ATTR in op.attributes:
                asked = ir.IntegerAttr(op.attributes[SHARED_ALIGNMENT_ATTR]).value
                alignment = max(alignment, asked)
            if op.operation.name != "llvm.func" or TENSOR_MAPS_ATTR not in op.attributes:
                continue
            maps = len(op.attributes[TENSOR_MAPS_ATTR])
            kernel_name = ir.StringAttr(op.attributes["sym_name"]).value
            map_counts[f"{module_name}::{kernel_name}"] = maps
            count = len(op.regions[0].blocks[0].arguments)
            old = op.attributes["arg_attrs"] if "arg_attrs" in op.attributes else None
            entries = [old[i] if old is not None else ir.DictAttr.get({}) for i in range(count)]
            for index in range(count - maps, count):
                fields = {named.name: named.attr for named in ir.DictAttr(entries[index])}
                fields["llvm.byval"] = ir.TypeAttr.get(ir.Type.parse("!llvm.array<128 x i8>"))
                fields["llvm.align"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 64)
                fields["nvvm.grid_constant"] = ir.UnitAttr.get()
                entries[index] = ir.DictAttr.get(fields)
                marked += 1
            op.attributes["arg_attrs"] = ir.ArrayAttr.get(entries)
        if marked > module_marked:
            alignment = max(alignment, TENSOR_COPY_BASE_ALIGNMENT)
        if alignment:
            _align_dynamic_shared_memory(module_op, ir, alignment)
    # Host launchers (host_launch) pass the maps they encoded by value.
    pass_maps_by_value(upstream_module, map_counts, ir)
    return marked


# A tensor copy lands at a 128-byte aligned shared address, a 128B-swizzled one at a
# 1024-byte aligned one; the arena's offsets assume its base is so aligned.
TENSOR_COPY_BASE_ALIGNMENT = 1024


def _align_dynamic_shared_memory(gpu_module, ir, alignment: int) -> None:
    """Upstream declares the dynamic shared memory (``gpu.dynamic_shared_memory``)
    16-byte aligned; a kernel with tensor copies, or whose buffers ask more
    (``tilepipe.shared_alignment``: wgmma operands), needs its base aligned as its
    arena's swizzled tiles (what CUDA code asks with ``extern __shared__
    __align__(1024)``)."""
    for op in gpu_module.regions[0].blocks[0].operations:
        if op.operation.name == "llvm.mlir.global" and ir.StringAttr(
            op.attributes["sym_name"]
        ).value.startswith("__dynamic_shmem__"):
            op.attributes["alignment"] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), alignment
            )


def _import_bindings():
    from mlir import ir
    from mlir.dialects import gpu
    from mlir.passmanager import PassManager

    return ir, gpu, PassManager


def _module_text(module, debug_info: bool) -> str:
    """Upstream's text of ``module``; with ``debug_info`` its locations too, in the
    form ``--mlir-print-debuginfo`` gives (aliases defined at the end)."""
    return module.operation.get_asm(enable_debug_info=debug_info)


def run_upstream(
    module: ModuleOp | str,
    target: CudaTarget,
    stage: Stage,
    *more_stages: Stage,
    debug_info: bool = False,
) -> UpstreamResult:
    """Parse ``module`` in upstream MLIR and lower it, keeping its text at ``stage``
    (and at ``more_stages``) on the way, with locations if ``debug_info``."""
    import time

    ir, gpu, PassManager = _import_bindings()
    wanted = {stage, *more_stages}
    last = max(wanted, key=STAGE_ORDER.index)
    text = module if isinstance(module, str) else generic_text(module)
    texts: dict[Stage, str] = {}
    seconds: dict[str, float] = {}
    with ir.Context():
        start = time.perf_counter()
        try:
            upstream_module = ir.Module.parse(text)
            upstream_module.operation.verify()
        except Exception as error:  # MLIRError: the diagnostics say what and where
            raise UpstreamError("parsing", _diagnostic_text(error)) from None
        seconds["upstream-parse"] = time.perf_counter() - start
        if Stage.NVVM in wanted:
            texts[Stage.NVVM] = _module_text(upstream_module, debug_info)
        if last is Stage.NVVM:
            return UpstreamResult(texts, seconds)

        def after(name: str, elapsed: float) -> None:
            seconds[name] = elapsed
            if name == CONVERSION_TO_LLVM[-1][0] and Stage.LLVM in wanted and last is Stage.PTX:
                texts[Stage.LLVM] = _module_text(upstream_module, debug_info)

        run_handoff(upstream_module, target, last, after_step=after)
        if last is Stage.LLVM:
            texts[Stage.LLVM] = _module_text(upstream_module, debug_info)
            return UpstreamResult(texts, seconds)
        for op in upstream_module.body.operations:
            if op.operation.name == "gpu.binary":
                objects = op.attributes["objects"]
                texts[Stage.PTX] = gpu.ObjectAttr(objects[0]).object.decode()
                return UpstreamResult(texts, seconds)
        raise UpstreamError("gpu-module-to-binary", "no gpu.binary was produced")


def run_handoff(
    upstream_module,
    target: CudaTarget,
    stage: Stage = Stage.PTX,
    after_step: Callable[[str, float], None] | None = None,
) -> None:
    """Run the hand-off on ``upstream_module`` (a ``lower-to-nvvm`` module parsed in
    the caller's upstream context), in place, up to ``stage``: the passes of
    :func:`handoff_pipeline` one at a time, with :func:`mark_tensor_map_parameters`
    right after ``convert-gpu-to-nvvm`` -- what a host runs rather than the pipeline
    string when its kernels take tensor maps (then :data:`HOST_PIPELINE` for the
    host launchers).  A failing pass raises :class:`UpstreamError` naming it;
    ``after_step(name, seconds)`` follows each pass."""
    import time

    ir, _, PassManager = _import_bindings()
    for name, pipeline in _handoff_steps(target, Stage(stage)):
        start = time.perf_counter()
        try:
            PassManager.parse(f"builtin.module({pipeline})").run(upstream_module.operation)
        except Exception as error:
            raise UpstreamError(name, _diagnostic_text(error)) from None
        if name == "convert-gpu-to-nvvm":
            mark_tensor_map_parameters(upstream_module, ir)
        if after_step is not None:
            after_step(name, time.perf_counter() - start)


def _serve(connection, stderr_path: str) -> None:
    """The isolated child: one request on ``connection``, its reply back.

    A module-level function of plain arguments (a pipe end, a file path), so that the
    "spawn" start method can start it in a fresh interpreter: nothing of the parent
    needs pickling.  Upstream writes its last words ("LLVM ERROR: ...", an assertion)
    to the file descriptor 2, which goes to ``stderr_path`` for the parent to quote.
    """
    import faulthandler
    import os

    faulthandler.disable()  # upstream's own message is the one to report
    with open(stderr_path, "wb") as stderr:
        os.dup2(stderr.fileno(), 2)
    _import_bindings()
    try:
        text, target, stages, debug_info = connection.recv()
    except EOFError:  # the driver stopped before the hand-off
        return
    try:
        reply = ("ok", run_upstream(text, target, *stages, debug_info=debug_info))
    except UpstreamError as err:
        reply = ("error", (err.stage, err.message))
    connection.send(reply)
    connection.close()


class UpstreamProcess:
    """:func:`run_upstream` in a spawned child process: the opt-in isolation.

    LLVM's fatal errors ("LLVM ERROR: Cannot select ...") and the assertion-enabled
    bindings abort the process they happen in; isolated, they become an
    :class:`UpstreamError` carrying upstream's last words instead of killing the
    driver.  The child is started with "spawn", not "fork": forking a process with
    threads (PyTorch's, JAX's) can deadlock the child, and Windows cannot fork.  It
    starts on construction and imports the MLIR bindings straight away, so a driver
    that starts it before its own passes gets the start-up done in parallel with them.
    One request per process; use it as a context manager so the child is reaped.
    """

    def __init__(self) -> None:
        import multiprocessing
        import os
        import tempfile

        context = multiprocessing.get_context("spawn")
        descriptor, self._stderr_path = tempfile.mkstemp(prefix="tilepipe-upstream-")
        os.close(descriptor)
        self._connection, child_end = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child_end, self._stderr_path), daemon=True
        )
        self._process.start()
        # Only the child holds its end now: its exit is an EOF here.
        child_end.close()

    def run(
        self,
        module: ModuleOp | str,
        target: CudaTarget,
        stage: Stage,
        *more_stages: Stage,
        debug_info: bool = False,
    ) -> UpstreamResult:
        text = module if isinstance(module, str) else generic_text(module)
        try:
            self._connection.send((text, target, (stage, *more_stages), debug_info))
            kind, payload = self._connection.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError):
            self._process.join()
            raise UpstreamError(
                "the upstream pipeline",
                f"upstream MLIR/LLVM aborted (exit {self._process.exitcode}): "
                + " | ".join(self._last_words()),
            ) from None
        if kind == "error":
            raise UpstreamError(*payload)
        return payload

    def _last_words(self, lines: int = 3) -> list[str]:
        try:
            with open(self._stderr_path, "rb") as stderr:
                text = stderr.read().decode(errors="replace")
        except OSError:
            return []
        return text.strip().splitlines()[-lines:]

    def close(self) -> None:
        import os

        self._connection.close()  # an idle child sees EOF and returns
        self._process.join(timeout=5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._process.close()
        try:
            os.unlink(self._stderr_path)
        except OSError:
            pass

    def __enter__(self) -> UpstreamProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def run_upstream_isolated(
    module: ModuleOp | str,
    target: CudaTarget,
    stage: Stage,
    *more_stages: Stage,
    debug_info: bool = False,
) -> UpstreamResult:
    """:func:`run_upstream` in a spawned child process (see :class:`UpstreamProcess`)."""
    with UpstreamProcess() as process:
        return process.run(module, target, stage, *more_stages, debug_info=debug_info)
