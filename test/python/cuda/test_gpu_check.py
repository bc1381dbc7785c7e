"""The parts of scripts/gpu_check.py that need no GPU: the kernel ABI (memref
descriptors packed against the PTX entry's .param list), problem resizing, FLOP
counting, the architecture choice, the skip path without a driver, and the check's
plumbing with a stand-in driver that runs launches in the interpreter."""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from xdsl.dialects.builtin import IndexType

from tilepipe.drivers.compile import compile_kernel
from tilepipe.drivers.cuda_driver import CudaError, CudaUnavailable, TensorMapValue, encode_tensor_map
from tilepipe.drivers.cuda_launch import launch_config
from tilepipe.semantics import execute
from tilepipe.schedule_sim.calibration import read_calibrations

SCRIPTS = Path(__file__).resolve().parents[3] / "scripts"
sys.path.insert(0, str(SCRIPTS))
import gpu_check  # noqa: E402
import gpu_run  # noqa: E402

GEMM = gpu_check.EXAMPLES / "gemm.mlir"
POINTERS = {"A": 0x7F0000000000, "B": 0x7F0000200000, "C": 0x7F0000400000}


def _problem(size: int | None):
    (problem,) = gpu_check.load_problems(GEMM, [size] if size else None)
    return problem


@pytest.fixture(scope="module", params=[(None, "sm_80"), (512, "sm_90")], ids=["1024-sm_80", "512-sm_90"])
def compiled(request):
    size, arch = request.param
    problem = _problem(size)
    result = compile_kernel(problem.text, str(GEMM), arch, run_ptxas=False)
    return problem, result.ptx, size or 1024


def test_packed_descriptors_match_the_ptx_parameter_list(compiled):
    problem, ptx, n = compiled
    arguments = gpu_check.kernel_arguments(problem.func, POINTERS)
    params = gpu_check.ptx_parameters(ptx, "gemm")
    assert len(params) == len(arguments) == 3 * (3 + 2 * 2)
    gpu_check.check_abi(arguments, params, "gemm")
    a_fields = [(name, value.value) for name, value in arguments[:7]]
    assert a_fields == [
        ("A.allocated", POINTERS["A"]), ("A.aligned", POINTERS["A"]), ("A.offset", 0),
        ("A.sizes[0]", n), ("A.sizes[1]", n), ("A.strides[0]", n), ("A.strides[1]", 1),
    ]
    assert [name for name, _ in arguments[7::7]] == ["B.allocated", "C.allocated"]


def test_a_wrong_packing_is_rejected_before_launch(compiled):
    problem, ptx, _ = compiled
    params = gpu_check.ptx_parameters(ptx, "gemm")
    arguments = gpu_check.kernel_arguments(problem.func, POINTERS)
    bare_pointers = [arg for arg in arguments if arg[0].endswith(".aligned")]
    with pytest.raises(CudaError, match="3 packed arguments, the PTX declares 21"):
        gpu_check.check_abi(bare_pointers, params, "gemm")
    narrowed = [*arguments[:3], ("A.sizes[0]", ctypes.c_int32(1024)), *arguments[4:]]
    with pytest.raises(CudaError, match=r"parameter 3 \(A.sizes\[0\], 4 bytes\)"):
        gpu_check.check_abi(narrowed, params, "gemm")
    swapped = [arguments[2], *arguments[1:2], arguments[0], *arguments[3:]]
    with pytest.raises(CudaError, match="parameter 0 .* does not match the PTX's .b64 .ptr"):
        gpu_check.check_abi(swapped, params, "gemm")


def test_ptx_parameters_reads_one_entry():
    ptx = """
.visible .entry other(.param .u64 other_param_0)
.visible .entry k(
\t.param .u64 .ptr .align 1 k_param_0,
\t.param .u32 k_param_1,
\t.param .f32 k_param_2
)
"""
    assert gpu_check.ptx_parameters(ptx, "k") == [
        gpu_check.PtxParam(64, True), gpu_check.PtxParam(32, False), gpu_check.PtxParam(32, False),
    ]
    with pytest.raises(CudaError, match="no entry 'gemm'"):
        gpu_check.ptx_parameters(ptx, "gemm")


def test_matmul_flops_counts_every_executed_gemm():
    assert gpu_check.matmul_flops(_problem(None).func) == 2 * 1024**3
    assert gpu_check.matmul_flops(_problem(512).func) == 2 * 512**3


def test_a_resized_gemm_still_computes_a_at_b():
    problem = _problem(256)
    assert problem.func.attributes["tile.grid"].get_values() == (2, 2)
    rng = np.random.default_rng(1)
    inputs = {
        "A": rng.uniform(-1, 1, (256, 256)).astype(np.float16),
        "B": rng.uniform(-1, 1, (256, 256)).astype(np.float16),
        "C": np.zeros((256, 256), np.float32),
    }
    outputs = execute(problem.text, inputs=inputs).outputs
    expected = gpu_check.gemm_reference(inputs)["C"]
    assert np.max(np.abs(outputs["C"] - expected)) <= gpu_check.TOLERANCE * np.max(np.abs(expected))


def test_sizes_that_do_not_tile_the_problem_are_rejected():
    with pytest.raises(CudaError, match="--sizes 1000: the grid"):
        _problem(1000)


@pytest.mark.parametrize(
    "capability, archs",
    [((8, 0), ["sm_80"]), ((8, 9), ["sm_80"]), ((9, 0), ["sm_90", "sm_90a"]), ((10, 0), ["sm_90"])],
)
def test_the_gpu_picks_the_targets(capability, archs):
    assert gpu_check.archs_for(*capability) == archs


def test_gpus_before_sm_80_are_skipped():
    with pytest.raises(CudaUnavailable, match="compute capability 7.5"):
        gpu_check.archs_for(7, 5)


def test_without_a_driver_the_check_is_skipped(tmp_path, capsys):
    missing = str(tmp_path / "libcuda.so.1")
    assert gpu_check.main(["--cuda-driver", missing]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gpu_check: skipped: no CUDA driver / no GPU (cannot load")
    assert gpu_check.main(["--cuda-driver", missing, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["skipped"].startswith("skipped: no CUDA driver / no GPU")


class InterpretingDriver:
    """A stand-in for CudaDriver: device memory is host bytes, and a launch decodes the
    packed memref descriptors and runs the kernel in tilepipe's tile-level interpreter.
    It exercises the check's own plumbing (storage formats, descriptors, comparison)."""

    def __init__(self, problem, corrupt: bool = False, shared_bytes: int | None = 98304,
                 grid: tuple[int, ...] = (2, 2), threads: int = 128):
        self.problem, self.corrupt, self.grid = problem, corrupt, grid
        self.threads = threads  # the block the launch must have
        self.shared_bytes = shared_bytes  # None: any (it depends on num_stages)
        self.memory: dict[int, np.ndarray] = {}
        self.launches = 0
        self.tensor_maps: list[tuple] = []

    def upload(self, array: np.ndarray) -> int:
        pointer = 0x10000 * (len(self.memory) + 1)
        self.memory[pointer] = np.array(array)
        return pointer

    def download(self, pointer: int, like: np.ndarray) -> np.ndarray:
        assert self.memory[pointer].dtype == like.dtype
        return self.memory[pointer].copy()

    def launch(self, function, grid, threads, shared_bytes, arguments) -> None:
        func = self.problem.func
        assert (tuple(grid), threads) == (self.grid, self.threads)
        assert self.shared_bytes in (None, shared_bytes)
        inputs, buffers, index_args, position = {}, {}, {}, 0
        for name, arg in zip(gpu_check.argument_names(func), func.body.block.args):
            if isinstance(arg.type, IndexType):
                assert isinstance(arguments[position], ctypes.c_int64)
                index_args[name] = arguments[position].value
                position += 1
                continue
            rank = len(arg.type.get_shape())
            allocated, aligned, offset, *rest = (v.value for v in arguments[position : position + 3 + 2 * rank])
            sizes, strides = tuple(rest[:rank]), tuple(rest[rank:])
            assert allocated == aligned and offset == 0 and strides == (sizes[1], 1)
            stored = self.memory[aligned]
            assert stored.shape == sizes
            fmt = gpu_check.element_format(arg.type.element_type)
            inputs[name], buffers[name] = fmt.from_storage(stored), (aligned, fmt)
            position += 3 + 2 * rank
        outputs = execute(self.problem.text, inputs=inputs, index_args=index_args).outputs
        if self.corrupt:
            outputs["C"][5, 7] += 1.0
        for name, (pointer, fmt) in buffers.items():
            self.memory[pointer] = fmt.to_storage(outputs[name])
        self.launches += 1

    def tensor_map(self, pointer, shape, element_type, element_bytes, box, swizzle):
        """What the real driver encodes with cuTensorMapEncodeTiled; the tile-level
        run needs no map, so the stand-in records the request."""
        assert pointer in self.memory and self.memory[pointer].shape == tuple(shape)
        self.tensor_maps.append((tuple(shape), element_type, element_bytes, tuple(box), swizzle))
        return TensorMapValue()

    def milliseconds_per_call(self, run, repeat: int) -> float:
        run()
        return 1.0

    def load_ptx(self, ptx: str) -> object:
        return ptx

    def function(self, module, name: str) -> str:
        return name

    def attribute(self, attribute: int) -> int:
        return 227 * 1024

    def call(self, name: str, *args) -> None:
        assert name in ("cuFuncSetAttribute", "cuCtxSynchronize")

    def free(self, pointer: int) -> None:
        del self.memory[pointer]

    def unload(self, module) -> None:
        pass


@pytest.mark.parametrize("corrupt", [False, True], ids=["faithful", "one-wrong-element"])
def test_the_check_compares_what_the_launch_wrote(monkeypatch, corrupt):
    monkeypatch.setattr(gpu_run, "reference_figure", lambda *args: None)
    problem = _problem(256)
    driver = InterpretingDriver(problem, corrupt)
    args = gpu_check.build_parser().parse_args(["--repeat", "1"])
    outcome = gpu_check.run_problem(driver, problem, "sm_80", args)
    assert driver.launches == (1 if corrupt else 2) and not driver.memory  # all freed
    assert outcome.details["parameters"] == 21
    if corrupt:
        assert not outcome.ok and outcome.message.startswith("mismatch: max |error| 1 > ")
        assert "in %C (reference: numpy float32 A@B)" in outcome.message
    else:
        assert outcome.ok, outcome.message
        assert outcome.details["tflops"] == pytest.approx(2 * 256**3 / 1e-3 / 1e12)
        text = gpu_check.format_outcome(outcome)
        assert "check      ok" in text and "no reference available" in text


def test_on_sm90a_the_maps_are_encoded_per_launch_and_passed_by_value(monkeypatch):
    """The Hopper path's kernel takes a 128-byte map per operand after the memref
    descriptors: the check encodes one per array and box for the launch (B's box is
    one of its two panels), and the packed list matches the PTX entry
    (``.param .align 64 .b8 ..[128]``)."""
    monkeypatch.setattr(gpu_run, "reference_figure", lambda *args: None)
    problem = _problem(256)
    # Warp-specialized: the 128 threads of tile.threads consume, a warpgroup produces.
    driver = InterpretingDriver(problem, shared_bytes=None, threads=256)
    args = gpu_check.build_parser().parse_args(["--repeat", "1"])
    outcome = gpu_check.run_problem(driver, problem, "sm_90a", args)
    assert outcome.ok, outcome.message
    assert outcome.details["tensor_maps"] == 2 and outcome.details["parameters"] == 23
    assert driver.tensor_maps == [
        ((256, 256), "f16", 2, (128, 64), 128),  # A: 128-byte rows, the 128B swizzle
        ((256, 256), "f16", 2, (64, 64), 128),  # B: 256-byte rows, two 128-byte panels
    ]
    compiled = compile_kernel(problem.text, str(GEMM), "sm_90a", run_ptxas=False)
    params = gpu_check.ptx_parameters(compiled.ptx, "gemm")
    assert params[-2:] == [gpu_check.PtxParam(1024, False)] * 2


class RecordingEncoder:
    """Stands in for libcuda's cuTensorMapEncodeTiled (no driver here): records the
    arguments as the driver would read them."""

    def __init__(self, result: int = 0):
        self.result, self.calls = result, []

    def cuTensorMapEncodeTiled(self, tensor_map, data_type, rank, address, dims, strides,
                               box, element_strides, interleave, swizzle, promotion, fill):
        self.calls.append({
            "aligned": ctypes.cast(tensor_map, ctypes.c_void_p).value % 64 == 0,
            "data_type": data_type, "rank": rank, "address": address.value,
            "dims": list(dims), "strides": list(strides)[: rank - 1], "box": list(box),
            "element_strides": list(element_strides), "interleave": interleave,
            "swizzle": swizzle, "fill": fill,
        })
        return self.result


def test_a_map_is_encoded_innermost_first_with_byte_strides():
    lib = RecordingEncoder()
    encode_tensor_map(lib, 0x7F00, (4, 100, 72), "bf16", 2, (1, 64, 64), 128)
    assert lib.calls == [{
        "aligned": True, "data_type": 9, "rank": 3, "address": 0x7F00,
        "dims": [72, 100, 4], "strides": [144, 14400], "box": [64, 64, 1],
        "element_strides": [1, 1, 1], "interleave": 0, "swizzle": 3, "fill": 0,
    }]
    with pytest.raises(CudaError, match=r"rejected shape \[4, 100, 72\]"):
        encode_tensor_map(RecordingEncoder(1), 0x7F00, (4, 100, 72), "bf16", 2, (1, 64, 64), 128)


def test_each_argument_is_held_to_its_own_scale():
    reference = {"big": np.full(4, 100.0), "small": np.full(4, 0.01)}
    close = {"big": np.full(4, 100.05, np.float32), "small": np.full(4, 0.01, np.float32)}
    assert gpu_check.worst_difference(close, reference)[0] == "big"
    off = {"big": close["big"], "small": np.full(4, 0.0101, np.float32)}
    name, error, bound = gpu_check.worst_difference(off, reference)
    assert name == "small" and error > bound
    nan = {"big": np.array([100.0, np.nan, 100.0, 100.0], np.float32), "small": close["small"]}
    name, error, bound = gpu_check.worst_difference(nan, reference)
    assert name == "big" and not error <= bound


def test_each_configuration_records_the_model_next_to_the_measurement(monkeypatch, tmp_path):
    monkeypatch.setattr(gpu_run, "reference_figure", lambda *args: None)
    problem = _problem(256)
    outcomes = []
    for stages, ms in ((1, 3.0), (3, 1.0)):
        driver = InterpretingDriver(problem, shared_bytes=None)
        args = gpu_check.build_parser().parse_args(["--repeat", "1", "--num-stages", str(stages)])
        args.num_stages = args.num_stages[0]
        monkeypatch.setattr(driver, "milliseconds_per_call", lambda run, repeat, ms=ms: ms)
        outcomes.append(gpu_check.run_problem(driver, problem, "sm_80", args))
        assert outcomes[-1].ok, outcomes[-1].message
        model = outcomes[-1].details["model"]
        assert model["grid_cycles"] == 4 * model["cycles_per_block"] > 0
        assert model["kernel_cycles"] == model["cycles_per_block"]  # 4 blocks, 1 wave
        assert "  model      " in gpu_check.format_outcome(outcomes[-1])
    shallow, deep = (o.details["model"]["kernel_cycles"] for o in outcomes)
    assert deep < shallow  # the model ranks num_stages 3 first, as this "GPU" measured
    summary = gpu_check.calibration(outcomes)
    assert (summary["pairs"], summary["pairs_ordered_alike"]) == (1, 1)
    assert "1 of 1 pairs" in gpu_check.format_calibration(summary)
    # --calibrate: the constants fitted to these two measurements, where tune reads them.
    path = tmp_path / "calibration.json"
    line = gpu_check.write_calibration([(problem, o) for o in outcomes], {"name": "stand-in"},
                                       str(path), scales=(1.0, 2.0))
    assert line.startswith(f"gpu_check: calibration written to {path} (sm_80: ")
    fitted = read_calibrations(path)["sm_80"]
    assert fitted.device == "stand-in" and fitted.points == 2 and fitted.seconds_per_cycle > 0
    assert {fitted.copy_rate_scale, fitted.gemm_rate_scale} <= {1.0, 2.0}


def test_num_stages_takes_a_list():
    assert gpu_check.build_parser().parse_args(["--num-stages", "1,3"]).num_stages == [1, 3]
    with pytest.raises(SystemExit):
        gpu_check.build_parser().parse_args(["--num-stages", "0"])


DYNAMIC_GEMM = gpu_check.EXAMPLES / "gemm_dynamic.mlir"
SHAPES = {"A": (200, 77), "B": (77, 129), "C": (200, 129)}


def test_dynamic_dimensions_take_the_launch_sizes_in_the_descriptors():
    (problem,) = gpu_check.load_problems(DYNAMIC_GEMM, None, shapes=SHAPES)
    assert problem.label == "gemm_dynamic A=200x77 B=77x129 C=200x129"
    assert gpu_check.launch_grid(problem.func, problem.shapes) == (2, 2)  # ceildiv(129|200, 128)
    ptx = compile_kernel(problem.text, str(DYNAMIC_GEMM), "sm_80", run_ptxas=False).ptx
    arguments = gpu_check.kernel_arguments(problem.func, POINTERS, problem.shapes)
    gpu_check.check_abi(arguments, gpu_check.ptx_parameters(ptx, "gemm_dynamic"), "gemm_dynamic")
    b_fields = [(name, value.value) for name, value in arguments[7:14]]
    assert b_fields == [
        ("B.allocated", POINTERS["B"]), ("B.aligned", POINTERS["B"]), ("B.offset", 0),
        ("B.sizes[0]", 77), ("B.sizes[1]", 129), ("B.strides[0]", 129), ("B.strides[1]", 1),
    ]


def test_the_default_dynamic_gemm_runs_at_sizes_no_tile_divides():
    (problem,) = gpu_check.load_problems(DYNAMIC_GEMM, None)
    assert problem.shapes == {"A": (1000, 77), "B": (77, 129), "C": (1000, 129)}
    assert DYNAMIC_GEMM in gpu_check.DEFAULT_KERNELS


def test_a_dynamic_dimension_without_a_size_is_a_clear_failure():
    (problem,) = gpu_check.load_problems(DYNAMIC_GEMM, None, shapes={"A": (200, 77)})
    with pytest.raises(CudaError, match=r"%B : memref<\?x\?xf16> needs a shape \(--shape B=D0xD1"):
        gpu_check.kernel_arguments(problem.func, POINTERS, problem.shapes)


def test_an_index_argument_is_passed_as_i64_and_needs_a_value(tmp_path):
    kernel = tmp_path / "scaled.mlir"
    kernel.write_text(DYNAMIC_GEMM.read_text().replace(
        "%C: memref<?x?xf32>)", "%C: memref<?x?xf32>, %unused: index)"))
    (problem,) = gpu_check.load_problems(kernel, None, shapes=SHAPES, index_args={"unused": 7})
    arguments = gpu_check.kernel_arguments(problem.func, POINTERS, problem.shapes, problem.index_args)
    assert arguments[-1][0] == "unused" and isinstance(arguments[-1][1], ctypes.c_int64)
    with pytest.raises(CudaError, match="index argument %unused needs a value: --index-arg unused=V"):
        gpu_check.kernel_arguments(problem.func, POINTERS, problem.shapes)


@pytest.mark.parametrize("corrupt", [False, True], ids=["faithful", "one-wrong-element"])
def test_the_check_runs_a_dynamic_gemm_on_its_computed_grid(monkeypatch, corrupt):
    monkeypatch.setattr(gpu_run, "reference_figure", lambda *args: None)
    args = gpu_check.build_parser().parse_args(
        ["--repeat", "1", *(f"--shape={n}={'x'.join(map(str, d))}" for n, d in SHAPES.items())]
    )
    (problem,) = gpu_check.load_problems(DYNAMIC_GEMM, None, shapes=dict(args.shape))
    driver = InterpretingDriver(problem, corrupt, shared_bytes=None, grid=(2, 2))
    outcome = gpu_check.run_problem(driver, problem, "sm_80", args)
    assert not driver.memory  # all freed
    if corrupt:
        assert not outcome.ok and "in %C (reference: numpy float32 A@B)" in outcome.message
    else:
        assert outcome.ok, outcome.message
        assert outcome.details["grid"] == [2, 2]
        assert outcome.details["flops"] == 2 * 200 * 129 * 77  # the dynamic K loop: A@B's own


@pytest.mark.parametrize("capability, runs_hopper_example", [("8.0", False), ("9.0", True)])
def test_the_sm90a_example_is_a_default_kernel_only_where_sm90a_runs(
    monkeypatch, capsys, capability, runs_hopper_example
):
    """examples/gemm_sm90a.mlir needs 197 KB of shared memory and is written for
    sm_90a, as flash_attention_sm90a.mlir (wgmma's register A): by default they run on
    compute capability 9.0 only, else a note says why."""
    loaded = []

    class Device:
        def __init__(self, library):
            pass

        def describe(self):
            return {"name": "stand-in", "compute_capability": capability, "driver": "0"}

    def load(path, *args):
        loaded.append(path.name)
        return []

    monkeypatch.setattr(gpu_check, "CudaDriver", Device)
    monkeypatch.setattr(gpu_check, "load_problems", load)
    gpu_check.main([])
    assert ("gemm_sm90a.mlir" in loaded) == runs_hopper_example
    assert ("flash_attention_sm90a.mlir" in loaded) == runs_hopper_example
    assert "gemm.mlir" in loaded
    out = capsys.readouterr().out
    for name in ("gemm_sm90a.mlir", "flash_attention_sm90a.mlir"):
        assert (f"{name}: for sm_90a only" in out) == (not runs_hopper_example)


def test_a_warp_specialized_kernel_launches_with_its_producer_warpgroup():
    """gemm_sm90a is warp-specialized: 256 consumer threads (tile.threads) and a
    producer warpgroup.  Launched with tile.threads alone its consumers would wait for
    copies no thread issues; gpu_run takes the compiled kernel's block (384)."""
    (problem,) = gpu_check.load_problems(gpu_check.EXAMPLES / "gemm_sm90a.mlir", None)
    compiled = compile_kernel(problem.text, "gemm_sm90a.mlir", "sm_90a", run_ptxas=False)
    assert launch_config(problem.func, compiled.module).threads == 384
    plain = compile_kernel(problem.text, "gemm_sm90a.mlir", "sm_90a", run_ptxas=False, warp_specialize=False)
    assert launch_config(problem.func, plain.module).threads == 256
