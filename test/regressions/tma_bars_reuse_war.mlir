// Fuzz 2026-12 (tma_bars_reuse_war): %V is read by every thread in the first loop and
// dead afterwards; merge-shared-memory put the second loop's mbarrier ring %tma_bars in
// its bytes, and nothing ordered that read before thread 0's mbarrier_init (WAR).
// mbarrier storage is now live for the whole kernel: it never shares bytes.

// RUN: tile-opt %s -p %{cuda:scheduled} -o %t
// RUN: filecheck %s < %t
// RUN: tile-run %t --check-races --compare-with %s --quiet

// CHECK-LABEL: func.func @k
// CHECK:         {name = "V", offset = [[V:[0-9]+]] : i64, bytes = 64 : i64
// CHECK-SAME:    {name = "tma_bars", offset = 0 : i64, bytes = 16 : i64, versions = 1 : i64, alignment = 16 : i64, live = array<i64: 0,
// CHECK:         %V_offset = arith.constant 16 : index
func.func @k(%A: memref<64x16xf16>, %B: memref<16x16xf16>, %E: memref<64x16xf32>, %D: memref<16x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %f0 = arith.constant 0.0 : f32
  %f2 = arith.constant 0.5 : f32
  %V = memref.alloc() : memref<16xf32, "shared">
  %T = memref.alloc() : memref<16x16xf32, "fragment">
  %Sa = memref.alloc() : memref<16x16xf16, "shared">
  %Sb = memref.alloc() : memref<16x16xf16, "shared">
  %Acc = memref.alloc() : memref<16x16xf32, "fragment">
  tile.fill<16> %f2 -> %V : f32 -> memref<16xf32, "shared">
  tile.fill<16x16> %f0 -> %Acc : f32 -> memref<16x16xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    tile.broadcast<16x16> %V -> %T axis 1 : memref<16xf32, "shared"> -> memref<16x16xf32, "fragment">
    %r = arith.muli %k, %c16 : index
    tile.copy<16x16> %T -> %E[%r, %c0] : memref<16x16xf32, "fragment"> -> memref<64x16xf32>
  }
  pipeline.for %j = %c0 to %c4 step %c1 num_stages = 2 {
    %r = arith.muli %j, %c16 : index
    tile.copy<16x16> %A[%r, %c0] -> %Sa : memref<64x16xf16> -> memref<16x16xf16, "shared">
    tile.copy<16x16> %B -> %Sb : memref<16x16xf16> -> memref<16x16xf16, "shared">
    tile.gemm<16x16x16> %Sa, %Sb -> %Acc : memref<16x16xf16, "shared">, memref<16x16xf16, "shared"> -> memref<16x16xf32, "fragment">
  }
  tile.copy<16x16> %Acc -> %D : memref<16x16xf32, "fragment"> -> memref<16x16xf32>
  func.return
}
