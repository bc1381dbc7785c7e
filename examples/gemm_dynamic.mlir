// examples/gemm.mlir with dynamic shapes: C[M, N] = A[M, K] * B[K, N] for any M, N, K,
// in 128x128x64 blocks with num_stages = 3.  Tiles at the edges reach past the arrays:
// their reads beyond an array are 0 (so a K tail adds nothing) and their writes beyond
// it are dropped (docs/semantics.md, "Dynamic shapes and boundary tiles").  The grid
// follows the sizes: ceildiv(N, 128) x ceildiv(M, 128) blocks.
//
//   tile-run examples/gemm_dynamic.mlir --shape A=1000x77 --shape B=77x129 --shape C=1000x129
func.func @gemm_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.000000e+00 : f32
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %grid_x = arith.ceildivui %N, %c128 : index
  %grid_y = arith.ceildivui %M, %c128 : index
  tile.grid_dims %grid_x, %grid_y
  %k_tiles = arith.ceildivui %K, %c64 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  pipeline.for %ko = %c0 to %k_tiles step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<128x64> %A[%m0, %k0] -> %A_s : memref<?x?xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %n0] -> %B_s : memref<?x?xf16> -> memref<64x128xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.copy<128x128> %C_f -> %C[%m0, %n0] : memref<128x128xf32, "fragment"> -> memref<?x?xf32>
  func.return
}
