// The sequential meaning of proxy_fence_generic_write.mlir: O = 0, B = A.
func.func @generic_then_bulk(%A: memref<64x64xf16>, %O: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %zero = arith.constant 0.000000e+00 : f16
  %z = memref.alloc() : memref<64x64xf16, "shared">
  tile.fill<64x64> %zero -> %z : f16 -> memref<64x64xf16, "shared">
  tile.copy<64x64> %z -> %O : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  tile.copy<64x64> %A -> %B : memref<64x64xf16> -> memref<64x64xf16>
  func.return
}
