// The running GEMM on Hopper (sm_90a): C = A * B, f16 inputs, f32 accumulation, with
// 128x256x64 blocks of two warpgroups (256 threads) and a 4-stage pipeline.
//
//   for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=4):
//       T.copy(A[by * block_M, ko * block_K], A_shared)
//       T.copy(B[ko * block_K, bx * block_N], B_shared)
//       T.gemm(A_shared, B_shared, C_local)
//
// On sm_90a (docs/nvvm.md, "wgmma" and "Tensor maps"): each copy is one tensor-map
// copy per 128-byte panel (thread 0 issues cp.async.bulk.tensor, the hardware swizzles
// the tile in the 128B mode and zero-fills past the arrays), completing on the
// slot's mbarrier; the gemm runs on wgmma, each warpgroup its 64-row slab of C as
// four m64n256k16 per k-iteration, A (K-major) and B (MN-major, in panels) read
// from shared memory through matrix descriptors.  A 48 KiB stage, four of them.
func.func @gemm(%A: memref<2048x2048xf16>, %B: memref<2048x2048xf16>,
                %C: memref<2048x2048xf32>)
    attributes {tile.grid = array<i64: 8, 16>, tile.threads = 256 : i64,
                tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c256 : index
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x256xf16, "shared">
  %C_f = memref.alloc() : memref<128x256xf32, "fragment">
  tile.fill<128x256> %zero -> %C_f : f32 -> memref<128x256xf32, "fragment">
  pipeline.for %ko = %c0 to %c32 step %c1 num_stages = 4 {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<128x64> %A[%m0, %k0] -> %A_s : memref<2048x2048xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x256> %B[%k0, %n0] -> %B_s : memref<2048x2048xf16> -> memref<64x256xf16, "shared">
    tile.gemm<128x256x64> %A_s, %B_s -> %C_f : memref<128x64xf16, "shared">, memref<64x256xf16, "shared"> -> memref<128x256xf32, "fragment">
  }
  tile.copy<128x256> %C_f -> %C[%m0, %n0] : memref<128x256xf32, "fragment"> -> memref<2048x2048xf32>
  func.return
}
