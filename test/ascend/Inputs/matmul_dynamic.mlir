// The Ascend cube matmul with dynamic M, N, K: ragged tiles in every dimension
// (InitConstValue + ND->NZ DataCopy of the valid part, Fixpipe of the valid part).
func.func @matmul(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.000000e+00 : f32
  %M = memref.dim %A, %c0 : memref<?x?xf16>
  %K = memref.dim %A, %c1 : memref<?x?xf16>
  %N = memref.dim %B, %c1 : memref<?x?xf16>
  %gx = arith.ceildivui %N, %c128 : index
  %gy = arith.ceildivui %M, %c128 : index
  tile.grid_dims %gx, %gy
  %k_tiles = arith.ceildivui %K, %c64 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %a_l1 = memref.alloc() : memref<128x64xf16, "l1">
  %b_l1 = memref.alloc() : memref<64x128xf16, "l1">
  %a_l0a = memref.alloc() : memref<128x64xf16, "l0a">
  %b_l0b = memref.alloc() : memref<64x128xf16, "l0b">
  %c_l0c = memref.alloc() : memref<128x128xf32, "l0c">
  tile.fill<128x128> %zero -> %c_l0c : f32 -> memref<128x128xf32, "l0c">
  pipeline.for %k = %c0 to %k_tiles step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<128x64> %A[%m0, %k0] -> %a_l1 : memref<?x?xf16> -> memref<128x64xf16, "l1">
    tile.copy<64x128> %B[%k0, %n0] -> %b_l1 : memref<?x?xf16> -> memref<64x128xf16, "l1">
    tile.copy<128x64> %a_l1 -> %a_l0a : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
    tile.copy<64x128> %b_l1 -> %b_l0b : memref<64x128xf16, "l1"> -> memref<64x128xf16, "l0b">
    tile.gemm<128x128x64> %a_l0a, %b_l0b -> %c_l0c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  }
  tile.copy<128x128> %c_l0c -> %C[%m0, %n0] : memref<128x128xf32, "l0c"> -> memref<?x?xf32>
  func.return
}
