"""Real shapes in the CUDA fuzzer (through the fuzzer's generator): ragged
static arrays, dynamic ``?`` dimensions checked at several drawn sizes, loop bounds and
grids computed from the sizes, true ``tile.divisibility`` facts; reproducers that carry
their sizes; and the per-thread NVVM check on kernels with ``%n`` or a grid expression."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from tilepipe.fuzz.check import Options, check_program, check_text, main
from tilepipe.fuzz.generate import SAME_DRAW, generate
from tilepipe.fuzz.minimize import minimize, reproducer_text
from tilepipe.fuzz.program import CUDA_TARGETS, Case, parse_case
from tilepipe.core.flows import FLOWS
from sweeps import long_mode

INPUTS = Path(__file__).parent / "Inputs"


@functools.cache
def _programs() -> tuple:
    """CUDA kernels of 100 seeds (generated once: drawing settles schedules by parsing)."""
    # sm_90a draws sm_90's kernels (SAME_DRAW): the generator's statistics need each
    # draw once.
    targets = [t for t in CUDA_TARGETS if t not in SAME_DRAW]
    return tuple(generate(seed, target) for seed in range(100) for target in targets)


def _shaped() -> list:
    return [p for p in _programs() if p.shape_cases]


def test_the_cuda_generator_draws_real_shapes_in_a_minority_of_kernels():
    programs = _programs()
    shaped = _shaped()
    assert 0.2 < len(shaped) / len(programs) < 0.5  # most kernels keep whole tiles
    assert any(p.dynamic for p in shaped) and any(not p.dynamic for p in shaped)
    assert any(p.grid_from_shape for p in shaped)
    assert any(loop.from_dim for p in shaped for loop in p.loops)
    assert any(p.divisibility for p in shaped)
    assert any(not p.dynamic and p.grid > 1 for p in shaped)  # a static grid past the arrays
    along = {(p.dims[s], case[s][0]) for p in shaped for case in p.shape_cases for s in case}
    assert any(extent == 1 for _, extent in along)
    assert any(extent % tile == tile - 1 for tile, extent in along)  # just below a multiple
    assert any(extent % tile == 1 for tile, extent in along if extent > 1)  # just above


def test_dynamic_kernels_are_checked_at_several_sizes_and_facts_hold_at_each():
    varied = False
    for p in _shaped():
        if not p.dynamic:  # one case, written into the types
            assert len(p.cases()) == len(p.trip_counts()) and "memref<?" not in p.text()
            continue
        cases = p.cases()
        assert len(cases) >= 3 and "memref<?" in p.text()
        varied |= len({c.shapes for c in cases}) > 1
        for (role, symbol), k in p.divisibility.items():
            for sizes in p.shape_cases:
                assert sizes[symbol][0 if role == "along" else 1] % k == 0
        if p.divisibility:
            assert "tile.divisibility" in p.text()
    assert varied


def test_a_case_prints_and_parses_back():
    case = Case(3, (("in0", (17, 32)), ("out1", (1,))))
    assert parse_case(case.header()) == case
    assert str(case) == "n = 3, %in0 = 17x32, %out1 = 1"
    assert parse_case(Case().header()) == Case()


def test_a_reproducer_carries_its_sizes_and_the_check_replays_them(tmp_path, capsys):
    program = min(  # the smallest such kernel: the check runs it at every case
        (p for p in _shaped() if p.dynamic and p.is_dynamic), key=lambda p: len(p.statements())
    )
    outcome = check_program(program, Options(determinism=False))
    text = reproducer_text(program, outcome, "race")
    header = [line for line in text.splitlines() if line.startswith("// case:")]
    assert [parse_case(line[len("// case:"):]) for line in header] == program.cases()
    path = tmp_path / "K.mlir"
    path.write_text(text)
    assert main([str(path)]) == (1 if outcome.findings else 0)
    assert f"{len(outcome.findings)} finding(s)" in capsys.readouterr().out


def test_the_minimizer_turns_real_shapes_back_into_whole_tiles():
    program = next(
        p for p in _shaped() if p.dynamic and p.divisibility and any(s.op == "gemm" for s in p.statements())
    )
    small = minimize(program, lambda q: any(s.op == "gemm" for s in q.statements()), budget_s=60)
    assert not small.dynamic and not small.shape_cases and not small.divisibility
    assert not any(loop.from_dim for loop in small.loops)


def test_the_nvvm_check_runs_a_grid_expression_with_a_dynamic_trip_count():
    """Found by the first real-shape campaign: the per-thread NVVM interpreter had no
    ``arith.ceildivsi`` (the trip count of a loop with step 2 and a dynamic bound) and
    read ``known_grid_size``, which a ``tile.grid_dims`` kernel does not have."""
    text = (INPUTS / "nvvm_grid_dims_strided_n.mlir").read_text()
    cases = [
        Case(n, (("A", (rows, 32)), ("B", (rows, 32)))) for n, rows in ((0, 1), (3, 200), (5, 129))
    ]
    outcome = check_text(text, "sm_80", cases, Options(nvvm=True, determinism=False))
    assert outcome.findings == []


def test_the_nvvm_interpreter_needs_blocks_for_a_grid_expression():
    from pipeline_helpers import apply_passes

    from tilepipe.semantics.nvvm.interp import NvvmExecutionError, run_nvvm_kernel

    module = apply_passes(
        (INPUTS / "nvvm_grid_dims_strided_n.mlir").read_text(),
        FLOWS["cuda"].spec(),
    )
    a = np.ones((40, 32), np.float32)
    with pytest.raises(NvvmExecutionError, match="no known grid size"):
        run_nvvm_kernel(module, [a, np.zeros_like(a), np.int64(2)])
    run = run_nvvm_kernel(module, [a, np.zeros_like(a), np.int64(2)], blocks=[(0,)])
    np.testing.assert_array_equal(run.outputs[1][:16], a[:16])  # slot 0 (slot 2 is past the end)


def test_sm90_bulk_copy_rows_of_a_dynamic_array_use_its_row_stride():
    """Found by the fuzzer's NVVM sample (sm_90, seed 739): lower-to-nvvm addressed the
    rows of a bulk copy with the type's strides, a ``?`` taken as the dynamic-size
    sentinel, so every row but the first came from a wrong address."""
    text = (INPUTS / "sm90_bulk_copy_dynamic_row_stride.mlir").read_text()
    sizes = {0: (8, 16), 1: (48, 16), 2: (24, 48), 3: (16, 32), 5: (40, 16)}
    cases = [Case(n, (("in3", size), ("out5", size))) for n, size in sizes.items()]
    outcome = check_text(text, "sm_90", cases, Options(nvvm=True, determinism=False))
    assert outcome.findings == []
    assert "pipeline.bulk_copy" in _compiled(text, "sm_90")  # the path under test


def _compiled(text: str, target: str) -> str:
    from tilepipe.fuzz.check import cuda_pipeline, parse, print_module
    from tilepipe.core.registry import get_all_passes, make_context

    module = parse(text)
    for name in cuda_pipeline(target).split(","):
        get_all_passes()[name]()().apply(make_context(), module)
    return print_module(module)


def test_sm90_cp_async_then_bulk_copy_into_reused_bytes():
    """Found by the fuzzer's NVVM sample on sm_90 (seed 712; seed 739 is a miscompile of
    the same shape over dynamic arrays): thread-sync counted a fence.proxy.async placed
    before the wait_group that lands a cp.async write as ordering that write before a
    bulk copy into the same (arena-reused) bytes, and so did the tile-level detector.
    A fence orders a cp.async's write only after the wait that lands it."""
    text = (INPUTS / "sm90_cp_async_then_bulk_copy_reused_bytes.mlir").read_text()
    outcome = check_text(text, "sm_90", [Case()], Options(nvvm=True, determinism=False))
    assert outcome.findings == []


def test_sm80_dead_cp_async_is_waited_for():
    """A cp.async whose destination nothing reads is drained before the return
    (thread-sync's exit drain; fuzz seeds 860 on sm_80, 851 on sm_90)."""
    text = (INPUTS / "sm80_dead_cp_async_never_waited.mlir").read_text()
    outcome = check_text(text, "sm_80", [Case()], Options(nvvm=True, determinism=False))
    assert outcome.findings == []


@pytest.mark.parametrize("name", [
    "sm90_f32_and_bf16_gemms_one_accumulator_two_stages.mlir",
    pytest.param("sm90_f32_and_bf16_gemms_one_accumulator.mlir", marks=pytest.mark.skipif(
        not long_mode("TILEPIPE_SLOW_REGRESSIONS"),
        reason="about 40 s of thread-sync at num_stages 5: set TILEPIPE_SLOW_REGRESSIONS=long "
               "(or TILEPIPE_TESTS=long); its two-stage twin runs by default",
    )),
])
def test_f32_gemm_into_a_tensor_core_accumulator_takes_the_scalar_path(name):
    """Fuzz seed 411991 (sm_90): an f32 gemm into the accumulator of a bf16 gemm runs the
    scalar FMA path over the mma.sync accumulator layout; per thread it equals the tile
    level at n = 2 (where the wrong product showed), and upstream and ptxas take the
    kernel.  The seed kernel pipelines at depth 5; the same kernel at depth 2 showed both
    findings too, before the fix."""
    text = (INPUTS / name).read_text()
    outcome = check_text(text, "sm_90", [Case(2)], Options(nvvm=True, ptx=True, determinism=False))
    assert outcome.compiled and outcome.findings == [], [str(f) for f in outcome.findings]
