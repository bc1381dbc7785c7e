// lowering-2026-12/exit_drain_guarded_step2_lb3.mlir: every path that issues a copy waits for it
// (wait_group 0) under the guard that issued it, so no copy is in flight at the
// return.  The exit-drain analysis (passes/cuda/exit_drain.py) tracks copies, not
// groups: the prologue's unconditional commit_group is empty where its guard skipped
// the copy.  No drain before the return; race free and equal to the source at
// n = 0, 1, 2, 5, 17 (test/python/cuda/test_exit_drain_guarded.py: every sync needed,
// the NVVM per-thread run).
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,5,17

// CHECK-LABEL: func.func @chain
// CHECK:       scf.for
// CHECK:       scf.if
// CHECK:       pipeline.wait_group 0
// CHECK-NEXT:  tile.copy
// CHECK-NEXT:  }
// CHECK-NEXT:  scf.if
// CHECK:       pipeline.wait_group 0
// CHECK-NEXT:  tile.copy
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @chain(%A: memref<640x16xf32>, %C: memref<640x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %clb = arith.constant 3 : index
  %cst = arith.constant 2 : index
  %cub = arith.constant 16 : index
  %crows = arith.constant 16 : index
  %S0 = memref.alloc() : memref<16x16xf32, "shared">
  pipeline.for %k = %clb to %n step %cst stage = [0, 2] order = [0, 1] {
    %r = arith.muli %k, %crows : index
    tile.copy<16x16> %A[%r, %c0] -> %S0 : memref<640x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S0 -> %C[%r, %c0] : memref<16x16xf32, "shared"> -> memref<640x16xf32>
  }
  func.return
}
