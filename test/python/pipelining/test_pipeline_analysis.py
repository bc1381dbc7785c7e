"""Unit tests of the access/dependence analysis, buffer versions and planning."""

from __future__ import annotations

import pytest

from conftest import EXAMPLES
from pipeline_helpers import parse, with_num_stages
from tilepipe.dialects.pipeline import ForOp
from tilepipe.passes.analysis.affine_forms import IV, AffineExpr, affine_form
from tilepipe.passes.analysis.loop_dependences import DependenceKind, LoopAccessAnalysis
from tilepipe.passes.pipelining.buffer_versions import compute_buffer_versions
from tilepipe.passes.pipelining.pipeline_planning import plan_from_num_stages
from tilepipe.passes.analysis.pipeline_schedule import LoopSchedule


def loop_of(body: str, args: str = "%X: memref<64xf32>, %m: index, %p: index") -> ForOp:
    text = f"""
func.func @f({args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %S = memref.alloc() : memref<8xf32, "shared">
  %T = memref.alloc() : memref<8xf32, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 num_stages = 2 {{
{body}
  }}
  func.return
}}"""
    return next(op for op in parse(text).walk() if isinstance(op, ForOp))


def accesses(loop: ForOp) -> list:
    analysis = LoopAccessAnalysis(loop)
    return analysis, [a for op in analysis.statements for a in analysis.accesses(op)]


def test_affine_forms_follow_index_arithmetic():
    loop = loop_of(
        """    %a = arith.muli %k, %c2 : index
    %b = arith.addi %a, %m : index
    %c = arith.subi %b, %c1 : index
    tile.copy<1> %X[%c] -> %S[%c0] : memref<64xf32> -> memref<8xf32, "shared">"""
    )
    copy = loop.statements()[0]
    form = affine_form(copy.src_offsets[0], loop)
    assert form.constant == -1
    assert form.coefficient(IV) == 2
    assert form.coefficient(loop.parent_block().args[1]) == 1


def test_intersection_is_exact_for_constant_differences():
    loop = loop_of(
        """    %off = arith.muli %k, %c2 : index
    tile.copy<2> %X[%off] -> %S[%c0] : memref<64xf32> -> memref<8xf32, "shared">
    tile.copy<2> %S[%c0] -> %X[%off] : memref<8xf32, "shared"> -> memref<64xf32>"""
    )
    analysis, (x_read, s_write, s_read, x_write) = accesses(loop)
    assert analysis.may_intersect(x_write, x_read, 0)
    # X[2k, 2k+2) and X[2(k+1), ...) are adjacent, not overlapping.
    assert not analysis.may_intersect(x_write, x_read, 1)
    assert not analysis.may_intersect(x_write, x_read, None)
    assert analysis.may_intersect(s_write, s_read, 3)


def test_z3_proves_disjointness_the_affine_test_cannot():
    # 2m and 2p + 1 never coincide, though neither is known.
    loop = loop_of(
        """    %even = arith.muli %m, %c2 : index
    %twice = arith.muli %p, %c2 : index
    %odd = arith.addi %twice, %c1 : index
    tile.copy<1> %X[%even] -> %S[%c0] : memref<64xf32> -> memref<8xf32, "shared">
    tile.copy<1> %S[%c0] -> %X[%odd] : memref<8xf32, "shared"> -> memref<64xf32>"""
    )
    analysis, (x_read, _, _, x_write) = accesses(loop)
    assert not analysis.may_intersect(x_read, x_write, 0)
    assert not analysis.may_intersect(x_read, x_write, None)


def test_unknown_symbols_may_intersect():
    loop = loop_of(
        """    tile.copy<1> %X[%m] -> %S[%c0] : memref<64xf32> -> memref<8xf32, "shared">
    tile.copy<1> %S[%c0] -> %X[%p] : memref<8xf32, "shared"> -> memref<64xf32>"""
    )
    analysis, (x_read, _, _, x_write) = accesses(loop)
    assert analysis.may_intersect(x_read, x_write, 0)


def test_values_loaded_in_the_loop_differ_between_iterations():
    loop = loop_of(
        """    %i = memref.load %X[%k] : memref<64xf32>
    %j = arith.fptosi %i : f32 to i64
    %idx = arith.index_cast %j : i64 to index
    tile.copy<1> %X[%idx] -> %S[%c0] : memref<64xf32> -> memref<8xf32, "shared">"""
    )
    analysis = LoopAccessAnalysis(loop)
    copy = analysis.statements[-1]
    read = analysis.accesses(copy)[0]
    assert analysis.may_intersect(read, read, 1)


def test_covers_needs_a_provable_box():
    loop = loop_of(
        """    tile.copy<8> %X[%c0] -> %S[%c0] : memref<64xf32> -> memref<8xf32, "shared">
    tile.copy<4> %S[%c2] -> %T[%c0] : memref<8xf32, "shared"> -> memref<8xf32, "shared">
    tile.copy<4> %S[%m] -> %T[%c0] : memref<8xf32, "shared"> -> memref<8xf32, "shared">"""
    )
    analysis, (_, s_write, s_inside, _, s_unknown, _) = accesses(loop)
    assert analysis.covers(s_write, s_inside)
    assert not analysis.covers(s_inside, s_write)
    assert not analysis.covers(s_write, s_unknown)


def gemm_loop(num_stages: int = 3) -> ForOp:
    text = with_num_stages((EXAMPLES / "gemm.mlir").read_text(), num_stages)
    return next(op for op in parse(text).walk() if isinstance(op, ForOp))


def test_gemm_dependences_and_distances():
    analysis = LoopAccessAnalysis(gemm_loop())
    copy_a, copy_b, gemm = analysis.statements
    edges = {(d.source, d.target, d.kind): d.distance for d in analysis.dependences()}
    assert edges[(copy_a, gemm, DependenceKind.FLOW)] == 0
    assert edges[(gemm, copy_a, DependenceKind.ANTI)] == 1
    assert edges[(gemm, gemm, DependenceKind.FLOW)] == 1  # the accumulator
    assert (copy_a, copy_b, DependenceKind.OUTPUT) not in edges
    # The copy rewrites A_s every iteration; reading the global A makes no edge.
    self_edges = [d for d in analysis.dependences() if d.source is d.target is copy_a]
    assert [(d.kind, d.buffer.name_hint, d.distance) for d in self_edges] == [
        (DependenceKind.OUTPUT, "A_s", 1)
    ]


@pytest.mark.parametrize(
    "num_stages, stages, orders",
    [
        (1, [0, 0, 1], [1, 2, 0]),
        (2, [0, 0, 1], [0, 1, 2]),
        (3, [0, 0, 2], [0, 1, 2]),
        (4, [0, 0, 3], [0, 1, 2]),
    ],
)
def test_tilelang_plan_of_the_gemm(num_stages, stages, orders):
    assert plan_from_num_stages(LoopAccessAnalysis(gemm_loop()), num_stages) == (
        stages,
        orders,
    )


def test_plan_without_rotation_when_copies_are_not_last():
    # Ascend matmul: gm->l1 copies feed l1->l0 copies; no rotation (TileLang's wgmma
    # shape), so the consumers keep stage num_stages.
    text = (EXAMPLES / "ascend_matmul.mlir").read_text()
    loop = next(op for op in parse(text).walk() if isinstance(op, ForOp))
    assert plan_from_num_stages(LoopAccessAnalysis(loop), 2) == (
        [0, 0, 2, 2, 2],
        [1, 3, 0, 2, 4],
    )


@pytest.mark.parametrize(
    "stages, orders, versions, tightened",
    [
        ([0, 0, 2], [0, 1, 2], 3, False),
        ([0, 0, 1], [0, 1, 2], 2, False),
        ([0, 0, 1], [1, 2, 0], 1, True),
        ([0, 0, 3], [1, 2, 0], 3, True),  # TileLang's >= 2 rule (TVM would keep 4)
        ([0, 0, 0], [0, 1, 2], 1, False),
    ],
)
def test_buffer_versions(stages, orders, versions, tightened):
    loop = gemm_loop()
    analysis = LoopAccessAnalysis(loop)
    schedule = LoopSchedule(loop, analysis.statements, stages, orders, max(stages) + 1)
    by_name = {v.buffer.name_hint: v for v in compute_buffer_versions(schedule, analysis)}
    assert by_name["A_s"].versions == versions
    assert by_name["A_s"].tightened == tightened
    assert by_name["C_f"].versions == 1  # written and read in one stage


def test_affine_expr_algebra():
    x = AffineExpr.of_symbol(IV)
    assert (x.scale(3) - x.scale(3)).is_constant
    assert (x + AffineExpr(2)).shift_iteration(5).constant == 7
