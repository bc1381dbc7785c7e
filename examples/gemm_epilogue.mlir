// The "epilogue" buffer-reuse scenario (docs/arena.md): the GEMM of gemm.mlir, but the
// f16 result is staged through a 32 KiB shared tile that is live only after the
// loop.  merge-shared-memory places C_s in the bytes A_s used (arena 64 KiB instead of
// 96 KiB at num_stages = 2), which creates a WAR hazard thread-sync must order: the
// last gemm's reads of A_s before the cast's writes of C_s.
func.func @gemm_epilogue(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                         %C: memref<1024x1024xf16>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64,
                tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x128xf16, "shared">
  %C_s = memref.alloc() : memref<128x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  pipeline.for %ko = %c0 to %c16 step %c1 num_stages = 2 {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<128x64> %A[%m0, %k0] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %n0] -> %B_s : memref<1024x1024xf16> -> memref<64x128xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.cast<128x128> %C_f -> %C_s : memref<128x128xf32, "fragment"> -> memref<128x128xf16, "shared">
  tile.copy<128x128> %C_s -> %C[%m0, %n0] : memref<128x128xf16, "shared"> -> memref<1024x1024xf16>
  func.return
}
