"""A host compiler continues from tilepipe's nvvm level with upstream's own passes.

``compile_for(..., level="nvvm", host_launch=True)`` returns the ``gpu.module`` of the
kernel and a host function per kernel that ``gpu.launch_func``s it.  A host parses
that text in its own context and lowers it with upstream's stock GPU pipeline
(``gpu-lower-to-nvvm-pipeline``) or with tilepipe's own hand-off
(:func:`handoff_pipeline`, then :data:`HOST_PIPELINE`), and JIT-compiles the result
with ``mlir.execution_engine.ExecutionEngine``.

No GPU is needed to check all but the kernel's run: the host code calls MLIR's CUDA
runtime wrappers (``mgpuModuleLoadJIT``, ``mgpuLaunchKernel``, ...), which the
bindings' wheel does not ship (``libmlir_cuda_runtime.so``); without them the engine
is built, but looking a function up fails (symbols not found) and initializing it
aborts the process.  :class:`RecordingRuntime` stands in for them: the engine loads
the embedded PTX and launches the kernel through it, and the test checks what it was
given.
"""

from __future__ import annotations

import ctypes
import re
from ctypes import c_char_p, c_int32, c_int64, c_void_p
from functools import cache

import pytest

import tilepipe
from conftest import EXAMPLES
from sweeps import EVERYTHING
from tilepipe.core.targets import TARGETS
from tilepipe.lowering.nvvm.upstream import (
    HANDOFF_PIPELINE,
    HOST_PIPELINE,
    Stage,
    handoff_pipeline,
    run_handoff,
    run_upstream,
)

MAP_BYTES = 128

ir = pytest.importorskip("mlir.ir")
from mlir.execution_engine import ExecutionEngine  # noqa: E402
from mlir.passmanager import PassManager  # noqa: E402


def standard_pipeline(chip: str) -> str:
    """Upstream's stock pipeline.  ``cubin-features`` must name a PTX ISA the chip
    has: its default, +ptx60, makes LLVM abort for sm_80 ("PTX version 6.0 does not
    support target 'sm_80'")."""
    return (
        f"builtin.module(gpu-lower-to-nvvm-pipeline{{cubin-chip={chip} "
        "cubin-format=isa cubin-features=+ptx80})"
    )


def tilepipe_pipelines(chip: str) -> list[str]:
    return [handoff_pipeline(chip), HOST_PIPELINE]


PIPELINES = {"standard": lambda chip: [standard_pipeline(chip)], "tilepipe": tilepipe_pipelines}

# (example, chip, kernel, grid, block): the launch each example's host function makes
# (its tile.grid and tile.threads).
LAUNCHES = [
    pytest.param("gemm", "sm_80", "gemm", (8, 8, 1), (128, 1, 1), id="gemm-sm_80"),
    pytest.param(
        "flash_attention", "sm_90", "flash_attention", (16, 1, 1), (128, 1, 1),
        id="flash_attention-sm_90",
    ),
]


@cache
def nvvm_text(example: str, chip: str) -> str:
    source = (EXAMPLES / f"{example}.mlir").read_text()
    return tilepipe.compile_for(source, chip, level="nvvm", host_launch=True).text


class RecordingRuntime:
    """The ``mgpu*`` functions the lowered host code calls (the signatures of
    MLIR's ``CudaRuntimeWrappers.cpp``), recording their arguments.  The ctypes
    callbacks must outlive the engine: its destructor calls ``mgpuModuleUnload``."""

    MODULE, FUNCTION, STREAM = 0x1000, 0x2000, 0x3000

    def __init__(self) -> None:
        self.ptx: list[str] = []
        self.functions: list[str] = []
        self.launches: list[tuple] = []
        self.calls: list[str] = []
        self.encoded: list[dict] = []  # mgpuTensorMapEncodeTiled's arguments
        self.map_params = 0  # the launches' last parameters that are maps (128 bytes)
        self.callbacks = {
            "mgpuModuleLoadJIT": ctypes.CFUNCTYPE(c_void_p, c_void_p, c_int32)(self._load),
            "mgpuModuleUnload": ctypes.CFUNCTYPE(None, c_void_p)(self._call("unload")),
            "mgpuModuleGetFunction": ctypes.CFUNCTYPE(c_void_p, c_void_p, c_char_p)(
                self._get_function
            ),
            "mgpuStreamCreate": ctypes.CFUNCTYPE(c_void_p)(lambda: self.STREAM),
            "mgpuStreamSynchronize": ctypes.CFUNCTYPE(None, c_void_p)(self._call("synchronize")),
            "mgpuStreamDestroy": ctypes.CFUNCTYPE(None, c_void_p)(self._call("destroy")),
            "mgpuLaunchKernel": ctypes.CFUNCTYPE(
                None, c_void_p, *[c_int64] * 6, c_int32, c_void_p, c_void_p, c_void_p, c_int64
            )(self._launch),
            "mgpuTensorMapEncodeTiled": ctypes.CFUNCTYPE(
                None, c_void_p, c_int32, c_int32, c_void_p, *[c_void_p] * 4, *[c_int32] * 4
            )(self._encode),
        }

    def register(self, engine: ExecutionEngine) -> None:
        for name, callback in self.callbacks.items():
            engine.raw_register_runtime(name, ctypes.cast(callback, c_void_p))

    def _call(self, name: str):
        return lambda *args: self.calls.append(name)

    def _load(self, data: int, opt_level: int) -> int:
        self.ptx.append(ctypes.string_at(data).decode())
        return self.MODULE

    def _get_function(self, module: int, name: bytes) -> int:
        assert module == self.MODULE
        self.functions.append(name.decode())
        return self.FUNCTION

    def _launch(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra, count):
        # Every kernel parameter is 8 bytes here (pointers and i64 descriptor fields)
        # but the maps, 128 bytes each.
        slots = ctypes.cast(params, ctypes.POINTER(c_void_p))
        fields = count - self.map_params
        values = [ctypes.cast(slots[i], ctypes.POINTER(c_int64))[0] for i in range(fields)]
        values += [ctypes.string_at(slots[i], MAP_BYTES) for i in range(fields, count)]
        self.launches.append((function, (gx, gy, gz), (bx, by, bz), shared, stream, values))

    def _encode(self, slot, data_type, rank, address, dims, strides, box, element_strides,
                interleave, swizzle, l2_promotion, oob_fill):
        def read(pointer, ctype, n):
            return list(ctypes.cast(pointer, ctypes.POINTER(ctype))[:n])

        assert slot % 64 == 0  # CUtensorMap is 64-byte aligned
        self.encoded.append({
            "data_type": data_type, "address": address, "sizes": read(dims, ctypes.c_uint64, rank),
            "byte_strides": read(strides, ctypes.c_uint64, rank - 1),
            "box": read(box, ctypes.c_uint32, rank),
            "element_strides": read(element_strides, ctypes.c_uint32, rank),
            "modes": (interleave, swizzle, l2_promotion, oob_fill),
        })
        # What the driver would write: here a pattern that names the map.
        ctypes.memmove(slot, bytes([len(self.encoded)]) * MAP_BYTES, MAP_BYTES)


def host_arity(module, name: str) -> int:
    """How many (pointer or i64) arguments the lowered host function ``name`` takes."""
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and op.attributes["sym_name"].value == name:
            signature = str(op.attributes["function_type"])
            arguments = re.fullmatch(r"!llvm\.func<void \((.*)\)>", signature)[1].split(", ")
            assert set(arguments) <= {"ptr", "i64"}, signature
            return len(arguments)
    raise AssertionError(f"no host function @{name}")


def dynamic_shared_bytes(text: str) -> int:
    (size,) = re.findall(r"dynamic_shared_memory_size %c(\d+)_i32", text)
    return int(size)


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@pytest.mark.parametrize(("example", "chip", "kernel", "grid", "block"), LAUNCHES)
def test_upstream_lowers_and_jits_the_nvvm_level(pipeline, example, chip, kernel, grid, block):
    text = nvvm_text(example, chip)
    runtime = RecordingRuntime()
    with ir.Context():
        module = ir.Module.parse(text)
        for passes in PIPELINES[pipeline](chip):
            PassManager.parse(passes).run(module.operation)
        # Everything is LLVM now but the gpu.binary the PTX is embedded from.
        assert {op.operation.name for op in module.body.operations} == {"llvm.func", "gpu.binary"}
        arity = host_arity(module, kernel)
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[])
        runtime.register(engine)
        # The packed wrapper, (void **arguments) -> void; 0 if a symbol is missing
        # (checked before initialize(), which aborts the process on a missing one).
        address = engine.raw_lookup(kernel)
        assert address
        engine.initialize()  # the global constructor loads the PTX
        cells = [c_int64(0x7000 + i) for i in range(arity)]
        arguments = (c_void_p * arity)(*[ctypes.addressof(cell) for cell in cells])
        ctypes.CFUNCTYPE(None, c_void_p)(address)(arguments)
        del engine  # unloads the module, while the callbacks are alive

    (ptx,) = runtime.ptx
    assert f".target {chip}" in ptx and f".entry {kernel}(" in ptx
    assert "mma.sync.aligned.m16n8k16" in ptx
    if pipeline == "tilepipe":  # the same passes as tilepipe's own hand-off
        assert ptx == run_upstream(text, TARGETS[chip], Stage.PTX).text
    assert runtime.functions == [kernel]
    ((function, launch_grid, launch_block, shared, stream, values),) = runtime.launches
    assert function == RecordingRuntime.FUNCTION and stream == RecordingRuntime.STREAM
    assert (launch_grid, launch_block) == (grid, block)
    assert shared == dynamic_shared_bytes(text) > 0
    assert values == [cell.value for cell in cells]  # the descriptors, passed through
    assert runtime.calls == ["synchronize", "destroy", "unload"]


CUDA_EXAMPLES = sorted(
    path.stem for path in EXAMPLES.glob("*.mlir") if '"sm_' in path.read_text()
)


@pytest.mark.skipif(not EVERYTHING, reason="about a minute: set TILEPIPE_TESTS=long")
@pytest.mark.parametrize("chip", ["sm_80", "sm_90"])
@pytest.mark.parametrize("example", CUDA_EXAMPLES)
def test_every_cuda_example_passes_upstreams_pipeline(example, chip):
    """The nvvm level of every CUDA example holds nothing upstream's stock pipeline
    leaves untranslated (it reaches PTX: gpu.binary)."""
    with ir.Context():
        module = ir.Module.parse(nvvm_text(example, chip))
        PassManager.parse(standard_pipeline(chip)).run(module.operation)
        assert "gpu.binary" in {op.operation.name for op in module.body.operations}


def test_the_exported_pipeline_is_the_hand_off():
    """``handoff_pipeline`` is the target pass, :data:`HANDOFF_PIPELINE`'s
    conversions and (for PTX) ``gpu-module-to-binary``, and upstream parses it."""
    conversions = HANDOFF_PIPELINE.removeprefix("builtin.module(").removesuffix(")")
    attach = "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3}"
    assert handoff_pipeline("sm_90", Stage.LLVM) == f"builtin.module({attach},{conversions})"
    assert handoff_pipeline(TARGETS["sm_90"]) == (
        f"builtin.module({attach},{conversions},gpu-module-to-binary{{format=isa}})"
    )
    with ir.Context():
        for pipeline in (HANDOFF_PIPELINE, handoff_pipeline("sm_80"), HOST_PIPELINE):
            PassManager.parse(pipeline)
    with pytest.raises(ValueError, match="not a CUDA target"):
        handoff_pipeline("ascend910b")
    with pytest.raises(ValueError, match="nvvm"):
        handoff_pipeline("sm_80", Stage.NVVM)


def test_a_host_launcher_encodes_its_tensor_maps_and_passes_their_bytes():
    """sm_90a with tensor maps: the host launcher of examples/gemm_sm90a.mlir,
    lowered by the hand-off (:func:`run_handoff`, which passes the maps by value) and
    upstream's host passes, and JIT-compiled, encodes one map per record from the
    arrays it is given -- their address, sizes innermost first, the outer byte
    stride, the record's box, 128-byte swizzle, zero fill -- and launches the kernel
    with each map's 128 bytes as its parameter, after the memref descriptors."""
    text = nvvm_text("gemm_sm90a", "sm_90a")
    runtime = RecordingRuntime()
    runtime.map_params = 2
    n = 2048
    with ir.Context():
        module = ir.Module.parse(text)
        run_handoff(module, TARGETS["sm_90a"])
        PassManager.parse(HOST_PIPELINE).run(module.operation)
        assert host_arity(module, "gemm") == 3 * 7  # the kernel's own arrays only
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[])
        runtime.register(engine)
        address = engine.raw_lookup("gemm")
        assert address
        engine.initialize()
        bases = [0x10000, 0x20000, 0x30000]
        # Each 2048x2048 array: allocated and aligned pointers (A's aligned one past
        # its allocation), offset, sizes, strides.
        cells = []
        for base, aligned in zip(bases, (bases[0] + 256, bases[1], bases[2])):
            cells += [c_int64(v) for v in (base, aligned, 0, n, n, n, 1)]
        arguments = (c_void_p * len(cells))(*[ctypes.addressof(cell) for cell in cells])
        ctypes.CFUNCTYPE(None, c_void_p)(address)(arguments)
        del engine

    assert [e["address"] for e in runtime.encoded] == [bases[0] + 256, bases[1]]
    for encoded in runtime.encoded:
        assert encoded["data_type"] == 6  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        assert encoded["sizes"] == [n, n] and encoded["byte_strides"] == [2 * n]
        assert encoded["element_strides"] == [1, 1]
        assert encoded["modes"] == (0, 3, 2, 0)  # no interleave, 128B swizzle, L2 128B, zero fill
    # The records' boxes, innermost first: A's 128x64 tile, B's 64x256 tile in two
    # 128-byte panels of 64 columns.
    assert [e["box"] for e in runtime.encoded] == [[64, 128], [64, 64]]
    ((_, grid, block, shared, _, values),) = runtime.launches
    assert (grid, block) == ((8, 16, 1), (384, 1, 1)) and shared == dynamic_shared_bytes(text)
    assert values[:21] == [cell.value for cell in cells]
    assert values[21:] == [bytes([1]) * MAP_BYTES, bytes([2]) * MAP_BYTES]
    (ptx,) = runtime.ptx
    assert ".param .align 64 .b8 gemm_param_21[128]" in ptx


def test_a_host_launcher_computes_a_grid_that_follows_the_sizes():
    """examples/gemm_dynamic.mlir states its grid as ceildiv(N, 128) x ceildiv(M, 128)
    (tile.grid_dims): its launcher computes that from the arrays it is given, so a
    1000x77 by 77x129 product launches 2 x 8 blocks -- not one."""
    text = nvvm_text("gemm_dynamic", "sm_80")
    runtime = RecordingRuntime()
    m, k, n = 1000, 77, 129
    with ir.Context():
        module = ir.Module.parse(text)
        for passes in tilepipe_pipelines("sm_80"):
            PassManager.parse(passes).run(module.operation)
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[])
        runtime.register(engine)
        address = engine.raw_lookup("gemm_dynamic")
        assert address
        engine.initialize()
        cells = []
        for base, (rows, columns) in zip((0x10000, 0x20000, 0x30000), ((m, k), (k, n), (m, n))):
            cells += [c_int64(v) for v in (base, base, 0, rows, columns, columns, 1)]
        arguments = (c_void_p * len(cells))(*[ctypes.addressof(cell) for cell in cells])
        ctypes.CFUNCTYPE(None, c_void_p)(address)(arguments)
        del engine

    ((_, grid, block, _, _, values),) = runtime.launches
    assert (grid, block) == ((2, 8, 1), (128, 1, 1))
    assert values == [cell.value for cell in cells]
