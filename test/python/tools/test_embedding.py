"""tilepipe inside an ML compiler's module (docs/api.md, "Kernels and host code",
"Threads"): host code in any dialect, module attributes and other code generators'
``gpu.module``s pass through untouched; only kernels are compiled; calls run in
parallel threads and processes give the serial results."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import threading
from pathlib import Path

import pytest
from mlir import ir

import tilepipe
from tilepipe.lowering.nvvm.upstream import generic_text

ROOT = Path(__file__).resolve().parents[3]
GEMM = (ROOT / "examples/gemm.mlir").read_text()

# Host code an ML compiler would hold beside the kernel: an op of a dialect nobody
# registered, a sparse tensor encoding, linalg and tosa, a kernel of another code
# generator (a gpu.module), each at a location of the host's file.
HOST = """
#csr = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
module attributes {mydialect.version = #mydialect.ver<3>} {
  func.func @frob(%x: i32) -> i32 {
    %y = "mydialect.frob"(%x) {mydialect.mode = #mydialect.mode<fast>} : (i32) -> i32 loc("host.mlir":4:10)
    return %y : i32 loc("host.mlir":5:5)
  } loc("host.mlir":3:3)
  func.func @sparse(%t: tensor<8x8xf32, #csr>) -> tensor<8x8xf32, #csr> {
    return %t : tensor<8x8xf32, #csr> loc("host.mlir":8:5)
  } loc("host.mlir":7:3)
  func.func @fill(%out: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %zero = arith.constant 0.0 : f32
    %r = linalg.fill ins(%zero : f32) outs(%out : tensor<4x4xf32>) -> tensor<4x4xf32>
    %a = tosa.abs %r : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %a : tensor<4x4xf32>
  } loc("host.mlir":11:3)
  gpu.module @tilepipe_kernels {
    gpu.func @other() kernel {
      gpu.return
    }
  } loc("host.mlir":17:3)
}
"""


def host_module(kernel: str = GEMM, host: str = HOST) -> ir.Module:
    """``host`` with ``kernel`` (parsed by tilepipe, printed generic) at the end of its
    body, parsed in a context of the host's own."""
    generic = generic_text(tilepipe.parse(kernel, name="gemm.mlir"))
    kernel_ops = generic[generic.index("\n") + 1 : generic.rindex("\n})")]
    text = host[: host.rindex("}")] + kernel_ops + "\n}\n"
    context = ir.Context()
    context.allow_unregistered_dialects = True
    return ir.Module.parse(text, context=context)


def host_texts(module: ir.Module) -> dict[str, str]:
    """Each non-kernel top-level op's text (with locations), by symbol."""
    texts = {}
    for op in module.body.operations:
        name = str(op.operation.attributes["sym_name"]).strip('"')
        if name != "gemm":
            texts[name] = op.operation.get_asm(enable_debug_info=True)
    return texts


def test_host_code_in_any_dialect_passes_through_unchanged():
    module = host_module()
    before = module.operation.get_asm(enable_debug_info=True)
    result = tilepipe.compile_for(module, "sm_80", level="nvvm")
    assert module.operation.get_asm(enable_debug_info=True) == before  # input untouched
    lowered = result.module
    assert isinstance(lowered, ir.Module) and lowered.context is module.context
    lowered.operation.verify()
    kept = host_texts(module)
    kept.pop("tilepipe_kernels")  # the host's own gpu.module keeps its name ...
    new = host_texts(lowered)
    assert new.pop("tilepipe_kernels") == host_texts(module)["tilepipe_kernels"]
    ours = new.pop("tilepipe_kernels_1")  # ... and tilepipe's takes a free one
    assert "gpu.func @gemm" in ours and "nvgpu.mma.sync" in ours
    assert new == kept
    attributes = lowered.operation.attributes
    assert str(attributes["mydialect.version"]) == "#mydialect.ver<3>"
    assert "gpu.container_module" in attributes
    assert result.text == lowered.operation.get_asm(enable_debug_info=True)


def test_host_launch_keeps_the_kernels_name_and_the_hosts_calls():
    caller = """
    module {
      func.func @step() {
        %A = memref.alloc() : memref<1024x1024xf16>
        %B = memref.alloc() : memref<1024x1024xf16>
        %C = memref.alloc() : memref<1024x1024xf32>
        func.call @gemm(%A, %B, %C) : (memref<1024x1024xf16>, memref<1024x1024xf16>, memref<1024x1024xf32>) -> () loc("host.mlir":6:9)
        return
      }
    }
    """
    module = host_module(host=caller)
    with pytest.raises(tilepipe.CompileError) as err:
        tilepipe.compile_for(module, "sm_80", level="nvvm")
    (diagnostic,) = err.value.diagnostics
    assert str(diagnostic.location) == "host.mlir:6:9"
    assert "kernel @gemm" in diagnostic.message and "host_launch=True" in diagnostic.message
    lowered = tilepipe.compile_for(module, "sm_80", level="nvvm", host_launch=True).module
    lowered.operation.verify()  # the call now names the launcher
    assert host_texts(lowered)["step"] == host_texts(module)["step"]
    (launcher,) = [op for op in lowered.body.operations
                   if str(op.operation.attributes["sym_name"]) == '"gemm"']
    assert "gpu.launch_func" in launcher.operation.get_asm()


def test_a_foreign_op_inside_a_kernel_is_an_error_at_its_line():
    # The kernel as the host holds it (tile ops in generic form) with an op of the
    # host's own dialect before its main loop, located in the host's file.
    text = generic_text(tilepipe.parse(GEMM, name="gemm.mlir")).replace(
        '"pipeline.for"', '"mydialect.hint"() : () -> () loc("model.mlir":41:7)\n    "pipeline.for"', 1
    )
    context = ir.Context()
    context.allow_unregistered_dialects = True
    module = ir.Module.parse(text, context=context)
    with pytest.raises(tilepipe.CompileError) as err:
        tilepipe.compile_for(module, "sm_80", level="nvvm")
    (diagnostic,) = err.value.diagnostics
    assert str(diagnostic.location) == "model.mlir:41:7"
    assert "'mydialect.hint' op in kernel @gemm" in diagnostic.message


def test_run_pipeline_rewrites_only_the_kernels():
    module = host_module()
    scheduled = tilepipe.run_pipeline(module, "cuda:scheduled")
    assert host_texts(scheduled) == host_texts(module)
    kernel = next(op for op in scheduled.body.operations
                  if str(op.operation.attributes["sym_name"]) == '"gemm"')
    assert "pipeline.barrier" in kernel.operation.get_asm()


# The running example at 32x32x32 blocks (a tenth of its compile time): still
# ldmatrix, mma.sync and cp.async, so every lowering pattern runs.
SMALL_GEMM = """
func.func @gemm(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c32 : index
  %n0 = arith.muli %bx, %c32 : index
  %A_s = memref.alloc() : memref<32x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.fill<32x32> %zero -> %C_f : f32 -> memref<32x32xf32, "fragment">
  pipeline.for %ko = %c0 to %c8 step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %c32 : index
    tile.copy<32x32> %A[%m0, %k0] -> %A_s : memref<256x256xf16> -> memref<32x32xf16, "shared">
    tile.copy<32x32> %B[%k0, %n0] -> %B_s : memref<256x256xf16> -> memref<32x32xf16, "shared">
    tile.gemm<32x32x32> %A_s, %B_s -> %C_f : memref<32x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<32x32xf32, "fragment">
  }
  tile.copy<32x32> %C_f -> %C[%m0, %n0] : memref<32x32xf32, "fragment"> -> memref<256x256xf32>
  func.return
}
"""


def _compile_in_worker(_: int) -> str:
    return tilepipe.compile_for(host_module(SMALL_GEMM), "sm_80", level="nvvm").text


def test_threads_and_processes_give_the_serial_results():
    serial = _compile_in_worker(0)
    results: list[str | BaseException] = [""] * 8

    def work(i: int) -> None:
        try:
            results[i] = _compile_in_worker(i)
        except BaseException as err:  # reported below, with the others
            results[i] = err

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r if isinstance(r, BaseException) else r == serial for r in results] == [True] * 8
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert list(pool.map(_compile_in_worker, range(2))) == [serial, serial]
    assert "nvgpu.mma.sync" in serial and "nvgpu.ldmatrix" in serial


def test_diagnostics_use_the_hosts_value_names():
    """A host that names its values with name locations (``loc("A_s"(...))``) reads
    its own names in tilepipe's diagnostics."""
    text = generic_text(tilepipe.parse(GEMM.replace("num_stages = 3", "num_stages = 9"), name="gemm.mlir"))
    for buffer in ("A_s", "B_s"):
        start = text.index(f"%{buffer} = ")
        end = text.index("\n", start)
        line = text[start:end]
        where = line[line.rindex(" loc(") + len(" loc(") : -1]
        text = text[:start] + line.replace(f"loc({where})", f'loc("{buffer}"({where}))') + text[end:]
    context = ir.Context()
    context.allow_unregistered_dialects = True
    module = ir.Module.parse(text, context=context)
    assert "%A_s" not in module.operation.get_asm()  # upstream keeps no SSA names
    with pytest.raises(tilepipe.CompileError, match=r"budget .* A_s 9 x 16384 B, B_s 9 x 16384 B"):
        tilepipe.compile_for(module, "sm_80", level="nvvm")
