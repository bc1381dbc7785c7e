// RUN: tile-opt %s --split-input-file -p ascend-zero-boundary-tiles | filecheck %s
// RUN: tile-opt %s --split-input-file -p ascend-zero-boundary-tiles,ascend-zero-boundary-tiles | filecheck %s

// A GM -> UB copy that may reach past its array zeroes the UB tile first
// (DataCopyPad pads only to the 32-byte block; the rest of the tile would keep an
// earlier tile's data).  The fill is unconditional: a fill guarded by "this tile is
// ragged" left ascend-insert-sync a WAR ring it could not close (fuzz seeds 300032,
// 300113, 300191).  Running the pass twice changes nothing.
// CHECK-LABEL: func.func @ragged_rows
// CHECK:         %[[OFF:.*]] = arith.muli %i, %c16 : index
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    tile.fill<16x64> %[[ZERO]] -> %x_ub {ascend.zeroed_boundary_tile} : f32 -> memref<16x64xf32, "ub">
// CHECK-NEXT:    tile.copy<16x64> %x[%[[OFF]], %c0] -> %x_ub
// CHECK-NEXT:    tile.exp<16x64>
// CHECK-NOT:     tile.fill
// CHECK-NOT:     scf.if
func.func @ragged_rows(%x: memref<?x64xf32>, %z: memref<?x64xf32>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x_ub = memref.alloc() : memref<16x64xf32, "ub">
  %z_ub = memref.alloc() : memref<16x64xf32, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %off = arith.muli %i, %c16 : index
    tile.copy<16x64> %x[%off, %c0] -> %x_ub : memref<?x64xf32> -> memref<16x64xf32, "ub">
    tile.exp<16x64> %x_ub -> %z_ub : memref<16x64xf32, "ub"> -> memref<16x64xf32, "ub">
    tile.copy<16x64> %z_ub -> %z[%off, %c0] : memref<16x64xf32, "ub"> -> memref<?x64xf32>
  }
  func.return
}

// -----

// A static array the tile does not divide: its tiles may be ragged.
// CHECK-LABEL: func.func @static_tail
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    tile.fill<256> %[[ZERO]] -> %x_ub {ascend.zeroed_boundary_tile} : i32 -> memref<256xi32, "ub">
// CHECK-NEXT:    tile.copy<256> %x[%{{.*}}] -> %x_ub
func.func @static_tail(%x: memref<1000xi32>, %z: memref<1000xi32>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xi32, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<1000xi32> -> memref<256xi32, "ub">
    tile.copy<256> %x_ub -> %z[%off] : memref<256xi32, "ub"> -> memref<1000xi32>
  }
  func.return
}

// -----

// Whole tiles of a static array (the fast path), GM -> L1 (zeroed by its own
// InitConstValue) and stores are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     tile.fill
// CHECK-NOT:     scf.if
func.func @untouched(%x: memref<4096xf16>, %a: memref<?x?xf16>, %z: memref<?xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %a_l1 = memref.alloc() : memref<16x16xf16, "l1">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    tile.copy<256> %x_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<?xf16>
    tile.copy<16x16> %a[%c0, %c0] -> %a_l1 : memref<?x?xf16> -> memref<16x16xf16, "l1">
  }
  func.return
}

// -----

// At the kernel's top level too (fuzz seed 20261205 was rejected when the fill sat in
// a branch there: "'tile.fill' op must be at the kernel's top level or in a pipelined
// loop").
// CHECK-LABEL: func.func @top_level
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    tile.fill<16x64> %[[ZERO]] -> %x_ub {ascend.zeroed_boundary_tile} : f32 -> memref<16x64xf32, "ub">
// CHECK-NEXT:    tile.copy<16x64> %x[%c0, %c0] -> %x_ub
// CHECK-NOT:     scf.if
// CHECK-NOT:     tile.fill
func.func @top_level(%x: memref<10x64xf32>, %z: memref<10x64xf32>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %x_ub = memref.alloc() : memref<16x64xf32, "ub">
  %z_ub = memref.alloc() : memref<16x64xf32, "ub">
  tile.copy<16x64> %x[%c0, %c0] -> %x_ub : memref<10x64xf32> -> memref<16x64xf32, "ub">
  tile.exp<16x64> %x_ub -> %z_ub : memref<16x64xf32, "ub"> -> memref<16x64xf32, "ub">
  tile.copy<16x64> %z_ub -> %z[%c0, %c0] : memref<16x64xf32, "ub"> -> memref<10x64xf32>
  func.return
}
