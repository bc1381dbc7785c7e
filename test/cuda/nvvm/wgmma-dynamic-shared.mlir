// A wgmma kernel with more than 48 KiB of shared memory and no tensor maps: its
// operands ask 1024-byte alignment (arena.swizzle = 128), so the gpu.func records
// tilepipe.shared_alignment and the hand-off declares the dynamic shared memory with
// that alignment (upstream declares 16), where the arena's offsets assume it.

// RUN: tile-opt %s -p lower-to-nvvm | filecheck %s
// RUN: tile-opt %s -p lower-to-nvvm -t 'nvvm-llvm{chip=sm_90a}' | tile-opt - | filecheck %s --check-prefix=LLVM

// CHECK-LABEL: gpu.func @big
// CHECK-SAME:    tilepipe.dynamic_shared_memory = 57344 : i64
// CHECK-SAME:    tilepipe.shared_alignment = 1024 : i64
// CHECK:         "nvvm.wgmma.mma_async"
// LLVM:          llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
func.func @big(%A: memref<64x64xf16>, %C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %B_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
  %big = memref.alloc() : memref<10240xf32, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<10240> %zero -> %big : f32 -> memref<10240xf32, "shared">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %A -> %A_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %B_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  pipeline.fence_proxy_async
  pipeline.barrier
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C : memref<64x64xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
