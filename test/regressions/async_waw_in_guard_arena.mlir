// RUN: tile-opt %s -p "async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1

// Neighbour of async_waw_in_guard.mlir: two copies into the same arena bytes through
// two buffers (as merge-shared-memory packs a dead buffer under a live one), inside
// one guard.  The guard is split between the copies, as for one buffer.

// CHECK-LABEL: func.func @k
// CHECK:       scf.if %go {
// CHECK-NEXT:    pipeline.async_copy<16x16> %A -> %Dead
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %go {
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    pipeline.async_copy<16x16> %A[%c16, %c0] -> %S
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %go {
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    tile.copy<16x16> %S -> %E
func.func @k(%A: memref<64x16xf32>, %E: memref<16x16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = memref.alloc() {alignment = 16 : i64} : memref<1024xi8, "shared">
  %Dead = memref.view %arena[%c0][] : memref<1024xi8, "shared"> to memref<16x16xf32, "shared">
  %S = memref.view %arena[%c0][] : memref<1024xi8, "shared"> to memref<16x16xf32, "shared">
  %go = arith.cmpi sgt, %n, %c0 : index
  scf.if %go {
    tile.copy<16x16> %A -> %Dead : memref<64x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %A[%c16, %c0] -> %S : memref<64x16xf32> -> memref<16x16xf32, "shared">
    tile.copy<16x16> %S -> %E : memref<16x16xf32, "shared"> -> memref<16x16xf32>
  }
  func.return
}
