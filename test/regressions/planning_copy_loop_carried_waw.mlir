// RUN: tile-opt %s -p pipeline-planning | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,7

// Fuzz regression (rejected-valid, seed 7044): at num_stages = 2 the copy into %s5 was
// hoisted to stage 0 while the broadcast after it overwrites %s5 in stage 1.  %s5 has
// one version (nothing reads it in the loop), so the copy of iteration k+1 ran before
// the broadcast of iteration k (loop-carried write-after-write) and the validator
// rejected the plan.  The copy now stays with the broadcast.

// CHECK-LABEL: func.func @copy_then_overwrite
// CHECK:       depth = 2
// CHECK:         tile.copy{{.*}} -> %s5 {pipeline.stage = 1 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %s8 {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.broadcast{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
func.func @copy_then_overwrite(%in6: memref<56x8xbf16>, %in9: memref<56xbf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s5 = memref.alloc() : memref<8x8xbf16, "shared">
  %s8 = memref.alloc() : memref<8xbf16, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %m = arith.muli %k, %c8 : index
    tile.copy<8x8> %in6[%m, %c0] -> %s5 : memref<56x8xbf16> -> memref<8x8xbf16, "shared">
    tile.copy<8> %in9[%m] -> %s8 : memref<56xbf16> -> memref<8xbf16, "fragment">
    tile.broadcast<8x8> %s8 -> %s5 axis 0 : memref<8xbf16, "fragment"> -> memref<8x8xbf16, "shared">
  }
  func.return
}
