// RUN: tile-opt %s -p pipeline-planning | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5

// Fuzz regression (rejected-valid, seed 7022): the copy into %s12 was hoisted to stage
// 0 ahead of the exp that writes %s12 before it in the same iteration (write-after-
// write), so the validator rejected pipeline-planning's own plan.  The copy now stays
// behind the exp, in its stage.

// CHECK-LABEL: func.func @copy_after_writer
// CHECK:       depth = 1
// CHECK:         tile.exp{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
func.func @copy_after_writer(%in8: memref<40x8xf16>, %out: memref<40x8xf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %s11 = memref.alloc() : memref<8x8xf16, "fragment">
  %s12 = memref.alloc() : memref<8x8xf16, "shared">
  %one = arith.constant 1.000000e+00 : f16
  tile.fill<8x8> %one -> %s11 : f16 -> memref<8x8xf16, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 1 {
    %m = arith.muli %k, %c8 : index
    tile.exp<8x8> %s11 -> %s12 : memref<8x8xf16, "fragment"> -> memref<8x8xf16, "shared">
    tile.copy<8x8> %in8[%m, %c0] -> %s12 : memref<40x8xf16> -> memref<8x8xf16, "shared">
    tile.copy<8x8> %s12 -> %out[%m, %c0] : memref<8x8xf16, "shared"> -> memref<40x8xf16>
  }
  func.return
}
