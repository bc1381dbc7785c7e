// RUN: tile-opt %s -p pipeline-planning | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,7

// Fuzz regression (rejected-valid, seed 9086): the second copy into %s0 was hoisted to
// stage 0 although the cast before it, in stage 1, still reads %s0 (write-after-read),
// and pipeline-planning's own plan was rejected by the validator, even at
// num_stages = 1.  Re-planned as an ordinary statement, the second copy leaves the first
// one in stage 0 breaking the loop-carried write-after-write on the single version
// of %s0, so both are planned with the cast: one stage, source order.

// CHECK-LABEL: func.func @copy_after_reader
// CHECK:       depth = 1
// CHECK:         tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.cast{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 3 : i64}
func.func @copy_after_reader(%in1: memref<56x8xbf16>, %out: memref<56x8xf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %s0 = memref.alloc() : memref<8x8xbf16, "shared">
  %s2 = memref.alloc() : memref<8x8xf16, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 1 {
    %m = arith.muli %k, %c8 : index
    tile.copy<8x8> %in1[%m, %c0] -> %s0 : memref<56x8xbf16> -> memref<8x8xbf16, "shared">
    tile.cast<8x8> %s0 -> %s2 : memref<8x8xbf16, "shared"> -> memref<8x8xf16, "fragment">
    tile.copy<8x8> %s2 -> %out[%m, %c0] : memref<8x8xf16, "fragment"> -> memref<56x8xf16>
    tile.copy<8x8> %in1[%m, %c0] -> %s0 : memref<56x8xbf16> -> memref<8x8xbf16, "shared">
  }
  func.return
}
