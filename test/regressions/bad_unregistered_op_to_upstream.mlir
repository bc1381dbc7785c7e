// lowering-2026-12/bad_unregistered_op_to_upstream.mlir: an op of an xDSL dialect that
// upstream MLIR lacks (`test.op`) went through the CUDA flow untouched and upstream's
// parser reported it in the anonymous buffer tilepipe printed (-:6:25).  The compile
// driver (before any pass) and lower-to-nvvm (for tile-opt -t ptx) report it at the op.
// RUN: %python %S/Inputs/exit_status.py 1 tilepipe compile %s --target sm_80 --emit ptx 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tile-opt %s -p lower-to-nvvm -t ptx 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tile-opt %s -p pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync,lower-to-nvvm 2>&1 | filecheck %s

// CHECK-NOT: upstream MLIR failed
// CHECK: bad_unregistered_op_to_upstream.mlir:[[# @LINE + 6]]:3: error: 'test.op' op is of dialect 'test', which upstream MLIR does not have and lower-to-nvvm does not lower: the CUDA flow cannot compile it
// CHECK-NOT: exit_status.py
func.func @empty_commit_before_results() {
  pipeline.commit_group
  %c2 = arith.constant 2 : index
  pipeline.commit_group
  %a, %b = "test.op"() : () -> (index, index)
  pipeline.commit_group {pipeline.stage = 0 : i64}
  func.return
}
