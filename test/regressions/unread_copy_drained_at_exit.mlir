// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet

// Fuzz regression (seed 201500, sm_80): the copy into %s3 is never read, so no hazard
// asks for its group to land; the epilogue's last wait (wait_group 1, enough for every
// reader) left the loop's last group in flight at the return, and the lowered kernel's
// threads exited with a cp.async still writing shared memory (the NVVM interpreter:
// "copy never waited for").  thread-sync now drains what may be in flight before the
// return, and the tile-level detector counts the exit as a write of those bytes.

// CHECK-LABEL: func.func @fuzz
// CHECK:       scf.for
// CHECK:       pipeline.wait_group 1
// CHECK:       pipeline.wait_group 0
// CHECK-NEXT:  func.return
func.func @fuzz(%in1: memref<576xf32>, %in4: memref<576x32xbf16>, %in6: memref<576x32xbf16>, %in8: memref<288x32xbf16>, %in10: memref<576xbf16>, %out12: memref<576x32xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s0 = memref.alloc() : memref<64xf32, "shared">
  %s2 = memref.alloc() : memref<64x32xf32, "fragment">
  %s3 = memref.alloc() : memref<64x32xbf16, "shared">
  %s5 = memref.alloc() : memref<64x32xbf16, "shared">
  %s7 = memref.alloc() : memref<32x32xbf16, "shared">
  %s9 = memref.alloc() : memref<64xbf16, "shared">
  %s11 = memref.alloc() : memref<64x32xbf16, "shared">
  %slot0 = arith.addi %c0, %c0 : index
  pipeline.for %k0 = %c0 to %c9 step %c1 num_stages = 3 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c64 : index
    %o0_k = arith.muli %it0, %c32 : index
    tile.copy<64> %in1[%o0_m] -> %s0 : memref<576xf32> -> memref<64xf32, "shared">
    tile.broadcast<64x32> %s0 -> %s2 axis 1 : memref<64xf32, "shared"> -> memref<64x32xf32, "fragment">
    tile.copy<64x32> %in4[%o0_m, %c0] -> %s3 : memref<576x32xbf16> -> memref<64x32xbf16, "shared">
    tile.copy<64x32> %in6[%o0_m, %c0] -> %s5 : memref<576x32xbf16> -> memref<64x32xbf16, "shared">
    tile.copy<32x32> %in8[%o0_k, %c0] -> %s7 : memref<288x32xbf16> -> memref<32x32xbf16, "shared">
    tile.gemm<64x32x32> %s5, %s7 -> %s2 : memref<64x32xbf16, "shared">, memref<32x32xbf16, "shared"> -> memref<64x32xf32, "fragment">
    tile.copy<64> %in10[%o0_m] -> %s9 : memref<576xbf16> -> memref<64xbf16, "shared">
    tile.broadcast<64x32> %s9 -> %s11 axis 1 : memref<64xbf16, "shared"> -> memref<64x32xbf16, "shared">
    tile.copy<64x32> %s2 -> %out12[%o0_m, %c0] : memref<64x32xf32, "fragment"> -> memref<576x32xf32>
  }
  func.return
}
