// How deep a wait_group is (docs/sync.md, "How deep a wait is"): two independent
// copy/gemm pairs per iteration.  Planning puts each gemm before the next iteration's
// copies into the slot it read, so the steady state commits two groups per iteration
// (A/B after the first gemm, D/E after the second) and one wait before the D/E copies
// lands what the next iteration's two gemms read.  The wait keeps num_stages - 1
// groups in flight: more are in flight in the steady state (two per iteration), but
// on the path from the prologue, which commits one group per iteration, only
// num_stages - 1 groups follow the first iteration's.  One wait_group 0 after the
// loop drains what the epilogue reads (it has no barrier between its gemms to hang
// a partial wait on).  test/python/cuda/test_wait_depth.py checks each count is tight.

// RUN: sed 's/num_stages = 3/num_stages = 2/' %s | tile-opt - -p %{cuda:scheduled} | filecheck %s --check-prefixes=CHECK,D2
// RUN: tile-opt %s -p %{cuda:scheduled} | filecheck %s --check-prefixes=CHECK,D3
// RUN: sed 's/num_stages = 3/num_stages = 4/' %s | tile-opt - -p %{cuda:scheduled} | filecheck %s --check-prefixes=CHECK,D4

// CHECK-LABEL: func.func @two_pairs
// D2:            pipeline.wait_group 1
// D3:            pipeline.wait_group 2
// D4:            pipeline.wait_group 3
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    scf.for
// CHECK:           tile.gemm<64x64x32> %A_s
// CHECK:           pipeline.barrier
// CHECK-NEXT:      pipeline.async_copy<64x32> %A
// CHECK-NEXT:      pipeline.async_copy<32x64> %B
// CHECK-NEXT:      pipeline.commit_group
// CHECK-NEXT:      tile.gemm<64x64x32> %D_s
// D2-NEXT:         pipeline.wait_group 1
// D3-NEXT:         pipeline.wait_group 2
// D4-NEXT:         pipeline.wait_group 3
// CHECK-NEXT:      pipeline.barrier
// CHECK-NEXT:      pipeline.async_copy<64x32> %D
// CHECK-NEXT:      pipeline.async_copy<32x64> %E
// CHECK-NEXT:      pipeline.commit_group
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.maxsi
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    scf.if
// CHECK-NOT:     pipeline.wait_group
// CHECK:         func.return
func.func @two_pairs(%A: memref<64x512xf16>, %B: memref<512x64xf16>,
                     %D: memref<64x512xf16>, %E: memref<512x64xf16>,
                     %C: memref<64x64xf32>, %F: memref<64x64xf32>, %n: index)
    attributes {tile.grid = array<i64: 1, 1>, tile.threads = 128 : i64,
                tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %D_s = memref.alloc() : memref<64x32xf16, "shared">
  %E_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %F_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %F_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 3 {
    %k0 = arith.muli %k, %c32 : index
    tile.copy<64x32> %A[%c0, %k0] -> %A_s : memref<64x512xf16> -> memref<64x32xf16, "shared">
    tile.copy<32x64> %B[%k0, %c0] -> %B_s : memref<512x64xf16> -> memref<32x64xf16, "shared">
    tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
    tile.copy<64x32> %D[%c0, %k0] -> %D_s : memref<64x512xf16> -> memref<64x32xf16, "shared">
    tile.copy<32x64> %E[%k0, %c0] -> %E_s : memref<512x64xf16> -> memref<32x64xf16, "shared">
    tile.gemm<64x64x32> %D_s, %E_s -> %F_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C[%c0, %c0] : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  tile.copy<64x64> %F_f -> %F[%c0, %c0] : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
