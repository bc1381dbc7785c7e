// Cube matmul on an Ascend AI Core (AIC): C = A * B for one 128x128 block, K streamed
// in 64-wide slices GM -> L1 (MTE2) -> L0A/L0B (MTE1), multiplied into L0C (M) and
// written back L0C -> GM by the fixpipe (FIX).  The L0C fill folds into the first
// mmad's init flag.  num_stages = 2 bounds the versions of the L1 and L0 buffers.
//
//   tile-opt examples/ascend_matmul.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget
func.func @matmul(%A: memref<128x512xf16>, %B: memref<512x128xf16>, %C: memref<128x128xf32>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %a_l1 = memref.alloc() : memref<128x64xf16, "l1">
  %b_l1 = memref.alloc() : memref<64x128xf16, "l1">
  %a_l0a = memref.alloc() : memref<128x64xf16, "l0a">
  %b_l0b = memref.alloc() : memref<64x128xf16, "l0b">
  %c_l0c = memref.alloc() : memref<128x128xf32, "l0c">
  tile.fill<128x128> %zero -> %c_l0c : f32 -> memref<128x128xf32, "l0c">
  pipeline.for %k = %c0 to %c8 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<128x64> %A[%c0, %k0] -> %a_l1 : memref<128x512xf16> -> memref<128x64xf16, "l1">
    tile.copy<64x128> %B[%k0, %c0] -> %b_l1 : memref<512x128xf16> -> memref<64x128xf16, "l1">
    tile.copy<128x64> %a_l1 -> %a_l0a : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
    tile.copy<64x128> %b_l1 -> %b_l0b : memref<64x128xf16, "l1"> -> memref<64x128xf16, "l0b">
    tile.gemm<128x128x64> %a_l0a, %b_l0b -> %c_l0c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  }
  tile.copy<128x128> %c_l0c -> %C : memref<128x128xf32, "l0c"> -> memref<128x128xf32>
  func.return
}
