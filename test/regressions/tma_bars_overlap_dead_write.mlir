// Fuzz 2026-12 (tma_bars_overlap_dead_write): %V1 is filled before the loop and never
// read; merge-shared-memory put tma-copy's %tma_bars on its bytes, and the fill and
// thread 0's mbarrier_init were unordered (WAW) at n = 0.  mbarrier storage is now
// live for the whole kernel; and since no copy of this loop has a reader in its
// iteration, none becomes a bulk copy (no mbarriers at all).

// RUN: tile-opt %s -p %{cuda:scheduled} -o %t
// RUN: filecheck %s < %t
// RUN: tile-run %t --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5

// CHECK-LABEL: func.func @kern
// CHECK-NOT:     tma_bars
// CHECK-NOT:     pipeline.bulk_copy
// CHECK:         func.return
func.func @kern(%A: memref<160x32xf16>, %B: memref<320x32xf16>, %X: memref<160x32xf32>, %C: memref<16x32xf32>, %D: memref<16x32xf32>, %E: memref<160x32xf32>, %H: memref<16x32xf16>, %Vout: memref<16xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %f0 = arith.constant 0.000000e+00 : f32
  %f1 = arith.constant 1.000000e+00 : f32
  %f2 = arith.constant 5.000000e-01 : f32
  %Sa0 = memref.alloc() : memref<16x32xf16, "shared">
  %Sa1 = memref.alloc() : memref<16x32xf16, "shared">
  %Sb0 = memref.alloc() : memref<32x32xf16, "shared">
  %Sb1 = memref.alloc() : memref<32x32xf16, "shared">
  %Sbt = memref.alloc() : memref<32x32xf16, "shared">
  %Sx = memref.alloc() : memref<16x32xf32, "shared">
  %Sp = memref.alloc() : memref<16x32xf16, "shared">
  %Acc0 = memref.alloc() : memref<16x32xf32, "fragment">
  %Acc1 = memref.alloc() : memref<16x32xf32, "fragment">
  %T0 = memref.alloc() : memref<16x32xf32, "fragment">
  %T1 = memref.alloc() : memref<16x32xf32, "fragment">
  %V0 = memref.alloc() : memref<16xf32, "shared">
  %V1 = memref.alloc() : memref<16xf32, "shared">
  tile.fill<16x32> %f0 -> %Acc0 : f32 -> memref<16x32xf32, "fragment">
  tile.fill<16x32> %f2 -> %Acc1 : f32 -> memref<16x32xf32, "fragment">
  tile.fill<16> %f0 -> %V0 : f32 -> memref<16xf32, "shared">
  tile.fill<16> %f2 -> %V1 : f32 -> memref<16xf32, "shared">
  pipeline.for %k0 = %c2 to %n step %c1 stage = [0, 0, 0, 0, 0, 2] order = [0, 1, 2, 3, 4, 5] {
    %row1 = arith.muli %k0, %c32 : index
    %rt2 = arith.muli %k0, %c0 : index
    tile.copy<32x32> %A[%rt2, %c0] -> %Sbt : memref<160x32xf16> -> memref<32x32xf16, "shared">
    %row3 = arith.muli %k0, %c16 : index
    tile.copy<16x32> %X[%row3, %c0] -> %Sx : memref<160x32xf32> -> memref<16x32xf32, "shared">
    tile.broadcast<16x32> %V0 -> %T1 axis 1 : memref<16xf32, "shared"> -> memref<16x32xf32, "fragment">
    tile.fill<16x32> %f1 -> %T1 : f32 -> memref<16x32xf32, "fragment">
    %row4 = arith.muli %k0, %c32 : index
    tile.copy<32x32> %B[%row4, %c0] -> %Sb1 : memref<320x32xf16> -> memref<32x32xf16, "shared">
    tile.add<16x32> %Acc1, %T1 -> %Acc1 : memref<16x32xf32, "fragment">, memref<16x32xf32, "fragment"> -> memref<16x32xf32, "fragment">
  }
  tile.copy<16x32> %Acc0 -> %C : memref<16x32xf32, "fragment"> -> memref<16x32xf32>
  tile.copy<16x32> %Acc1 -> %D : memref<16x32xf32, "fragment"> -> memref<16x32xf32>
  tile.copy<16> %V0 -> %Vout : memref<16xf32, "shared"> -> memref<16xf32>
  func.return
}
