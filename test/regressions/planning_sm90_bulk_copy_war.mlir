// RUN: tile-opt %s -p pipeline-planning | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,tma-copy,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5

// Fuzz regression (rejected-valid, CI sample seed 20261211, sm_90): the second copy
// into %s9 was hoisted to stage 0 (a TMA bulk copy after tma-copy) ahead of the cast
// that reads %s9 before it in stage 1: "'pipeline.bulk_copy' (stage 0, order 7) depends
// on 'tile.cast' (stage 2, order 0) in a later stage (write-after-read on %s9)".  The
// first copy keeps stage 0 (issued for the next iteration after the broadcast, the last
// statement reading %s9); the second stays behind the cast, in its stage.

// CHECK-LABEL: func.func @copy_after_reader
// CHECK:       depth = 2
// CHECK:         tile.copy{{.*}} -> %s9 {pipeline.stage = 0 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:    tile.cast{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %s9 {pipeline.stage = 2 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.broadcast{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %out13{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 4 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %out12{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 5 : i64}
func.func @copy_after_reader(%in7: memref<160xf32>, %out13: memref<160xbf16>, %out12: memref<80x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %s9 = memref.alloc() : memref<32xf32, "shared">
  %s10 = memref.alloc() : memref<32xbf16, "shared">
  %s12 = memref.alloc() : memref<16x32xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %o = arith.muli %k, %c32 : index
    %m = arith.muli %k, %c16 : index
    tile.copy<32> %in7[%o] -> %s9 : memref<160xf32> -> memref<32xf32, "shared">
    tile.cast<32> %s9 -> %s10 : memref<32xf32, "shared"> -> memref<32xbf16, "shared">
    tile.copy<32> %in7[%o] -> %s9 : memref<160xf32> -> memref<32xf32, "shared">
    tile.broadcast<16x32> %s9 -> %s12 axis 0 : memref<32xf32, "shared"> -> memref<16x32xf32, "shared">
    tile.copy<32> %s10 -> %out13[%o] : memref<32xbf16, "shared"> -> memref<160xbf16>
    tile.copy<16x32> %s12 -> %out12[%m, %c0] : memref<16x32xf32, "shared"> -> memref<80x32xf32>
  }
  func.return
}
