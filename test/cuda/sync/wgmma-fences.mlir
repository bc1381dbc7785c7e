// thread-sync on sm_90a: a gemm on wgmma reads its shared operands through the async
// proxy.  A generic write of an operand (a landed cp.async, a tile.copy) before it
// needs a fence.proxy.async of the writers, then the barrier; the reads before a
// generic overwrite need only the barrier.  A fence that a later fence of the same
// threads follows, with only generic accesses and cp.async bookkeeping between, is
// erased: the later one orders all the earlier did.

// RUN: tile-opt %s --split-input-file -p thread-sync | filecheck %s

// CHECK-LABEL: func.func @generic_writes_then_wgmma
// CHECK:         pipeline.mbarrier_init
// CHECK-NEXT:    tile.copy<64x64> %A -> %B_s
// CHECK-NEXT:    pipeline.wait_group 0
// CHECK-NEXT:    pipeline.fence_proxy_async
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    tile.gemm
// CHECK-NOT:     pipeline.fence_proxy_async
func.func @generic_writes_then_wgmma(%A: memref<64x64xf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bars = memref.alloc() : memref<1xi64, "shared">
  %A_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %B_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  %t = pipeline.async_copy<64x64> %A -> %A_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  pipeline.commit_group [%t]
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.fence_proxy_async
  tile.copy<64x64> %A -> %B_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @wgmma_reads_then_a_generic_overwrite
// CHECK:         tile.gemm
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    tile.copy<64x64> %A -> %A_s
func.func @wgmma_reads_then_a_generic_overwrite(%A: memref<64x64xf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %B_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %A -> %A_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %B_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %A -> %A_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
