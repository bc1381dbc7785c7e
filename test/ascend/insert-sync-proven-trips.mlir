// RUN: tile-opt %s --split-input-file -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s
// Rings are elided when the loop's trip count is proven not to exceed their distance,
// not only when it is a constant: from an scf.if around the loop, or from the bound's
// own arithmetic.  Without such a fact the WAR ring of the two-version buffer stays.

// Under `scf.if %n <= 2` the loop runs at most 2 iterations: the WAR ring (distance 2)
// could never fire; the RAW sync stays.
// CHECK-LABEL: func.func @guarded_short
// CHECK-NOT:   :war
// CHECK:       ascend.set_flag[MTE2, MTE3] {{.*}} {ascend.sync_point = "u:raw"}
// CHECK-NOT:   :war
// CHECK:       func.return
func.func @guarded_short(%x: memref<128xf16>, %y: memref<128xf16>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  %short = arith.cmpi sle, %n, %c2 : index
  scf.if %short {
    pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
      %o = arith.muli %i, %c64 : index
      tile.copy<64> %x[%o] -> %u : memref<128xf16> -> memref<64xf16, "ub">
      tile.copy<64> %u -> %y[%o] : memref<64xf16, "ub"> -> memref<128xf16>
    }
  }
  func.return
}


// -----

// `min(n, 2)` iterations at most (a select).
// CHECK-LABEL: func.func @min_bound
// CHECK-NOT:   :war
// CHECK:       ascend.set_flag[MTE2, MTE3] {{.*}} {ascend.sync_point = "u:raw"}
// CHECK-NOT:   :war
// CHECK:       func.return
func.func @min_bound(%x: memref<128xf16>, %y: memref<128xf16>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  %less = arith.cmpi slt, %n, %c2 : index
  %t = arith.select %less, %n, %c2 : index
  pipeline.for %i = %c0 to %t step %c1 num_stages = 2 {
    %o = arith.muli %i, %c64 : index
    tile.copy<64> %x[%o] -> %u : memref<128xf16> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %y[%o] : memref<64xf16, "ub"> -> memref<128xf16>
  }
  func.return
}


// -----

// Nothing bounds %n: the ring is primed, waited in the loop and drained.
// CHECK-LABEL: func.func @unbounded
// CHECK:       ascend.set_flag[MTE3, MTE2] %c0 {ascend.sync_point = "u:war"}
// CHECK-NEXT:  ascend.set_flag[MTE3, MTE2] %c1 {ascend.sync_point = "u:war"}
// CHECK-NEXT:  pipeline.for
// CHECK:       ascend.wait_flag[MTE3, MTE2] %c0 {ascend.sync_point = "u:war"}
// CHECK-NEXT:  ascend.wait_flag[MTE3, MTE2] %c1 {ascend.sync_point = "u:war"}
func.func @unbounded(%x: memref<128xf16>, %y: memref<128xf16>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %o = arith.muli %i, %c64 : index
    tile.copy<64> %x[%o] -> %u : memref<128xf16> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %y[%o] : memref<64xf16, "ub"> -> memref<128xf16>
  }
  func.return
}

// -----

// A loop that provably runs (max(n, 1) trips) orders the fill before it and the copy
// after it through its body's syncs, as a one-trip loop does: no flag of its own for %a.
// CHECK-LABEL: func.func @proven_running
// CHECK-NOT:   a:raw
// CHECK:       func.return
func.func @proven_running(%out: memref<8x8xf32>, %z: memref<8x8xf32>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32, "ub">
  %b = memref.alloc() : memref<8x8xf32, "ub">
  %more = arith.cmpi sgt, %n, %c1 : index
  %t = arith.select %more, %n, %c1 : index
  tile.fill<8x8> %zero -> %a : f32 -> memref<8x8xf32, "ub">
  pipeline.for %k = %c0 to %t step %c1 num_stages = 1 {
    tile.mul<8x8> %a, %a -> %b : memref<8x8xf32, "ub">, memref<8x8xf32, "ub"> -> memref<8x8xf32, "ub">
    tile.copy<8x8> %b -> %z : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  }
  tile.copy<8x8> %a -> %out : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  func.return
}

// -----

// Under `scf.if %n >= 1` the loop runs whenever it is reached, but it may not be
// reached: %a keeps its own flag.
// CHECK-LABEL: func.func @guarded_running
// CHECK:       tile.fill<8x8> %zero -> %a
// CHECK-NEXT:  ascend.set_flag[V, MTE3] %[[ID:.*]] {ascend.sync_point = "a:raw"}
// CHECK:       ascend.wait_flag[V, MTE3] %[[ID]] {ascend.sync_point = "a:raw"}
// CHECK-NEXT:  tile.copy<8x8> %a -> %out
func.func @guarded_running(%out: memref<8x8xf32>, %z: memref<8x8xf32>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32, "ub">
  %b = memref.alloc() : memref<8x8xf32, "ub">
  %some = arith.cmpi sge, %n, %c1 : index
  tile.fill<8x8> %zero -> %a : f32 -> memref<8x8xf32, "ub">
  scf.if %some {
    pipeline.for %k = %c0 to %n step %c1 num_stages = 1 {
      tile.mul<8x8> %a, %a -> %b : memref<8x8xf32, "ub">, memref<8x8xf32, "ub"> -> memref<8x8xf32, "ub">
      tile.copy<8x8> %b -> %z : memref<8x8xf32, "ub"> -> memref<8x8xf32>
    }
  }
  tile.copy<8x8> %a -> %out : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  func.return
}
