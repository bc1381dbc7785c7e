// The kernel of fuzz seed 411991 (sm90_f32_and_bf16_gemms_one_accumulator.mlir) at
// num_stages = 2 instead of 5: the same two findings before the fix (an f32 ldmatrix
// upstream rejects, and %out1 wrong per thread at n = 2), with a sixth of the seed
// kernel's thread-sync time, so the default test run checks the fix on it and the seed
// kernel itself runs with TILEPIPE_SLOW_REGRESSIONS=long.
// check: python -m tilepipe.fuzz.check K.mlir --nvvm --ptx
// case: n=1
// case: n=2
// case: n=5
func.func @fuzz(%out1: memref<1024x16xf32>, %in4: memref<1024x32xf32>, %in6: memref<256x32xf32>, %in8: memref<512x64xbf16>, %in10: memref<512x16xbf16>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %v0 = arith.constant 0.000000e+00 : f32
  %v1 = arith.constant 2.000000e+00 : f16
  %acc0 = memref.alloc() : memref<64x16xf32, "fragment">
  %s2 = memref.alloc() : memref<64xf16, "shared">
  %s3 = memref.alloc() : memref<64x32xf32, "shared">
  %s5 = memref.alloc() : memref<16x32xf32, "shared">
  %s7 = memref.alloc() : memref<32x64xbf16, "shared">
  %s9 = memref.alloc() : memref<32x16xbf16, "shared">
  %slot0 = arith.addi %c0, %c0 : index
  %span0 = arith.muli %n, %c3 : index
  %end0 = arith.addi %span0, %c3 : index
  tile.fill<64x16> %v0 -> %acc0 : f32 -> memref<64x16xf32, "fragment">
  pipeline.for %k0 = %c3 to %end0 step %c3 num_stages = 2 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c64 : index
    %o0_n = arith.muli %it0, %c16 : index
    %o0_k = arith.muli %it0, %c32 : index
    tile.copy<64x16> %acc0 -> %out1[%o0_m, %c0] : memref<64x16xf32, "fragment"> -> memref<1024x16xf32>
    tile.fill<64> %v1 -> %s2 : f16 -> memref<64xf16, "shared">
    tile.copy<64x32> %in4[%o0_m, %c0] -> %s3 : memref<1024x32xf32> -> memref<64x32xf32, "shared">
    tile.copy<16x32> %in6[%o0_n, %c0] -> %s5 : memref<256x32xf32> -> memref<16x32xf32, "shared">
    tile.gemm<64x16x32> %s3, %s5 -> %acc0 transpose_b : memref<64x32xf32, "shared">, memref<16x32xf32, "shared"> -> memref<64x16xf32, "fragment">
    tile.copy<32x64> %in8[%o0_k, %c0] -> %s7 : memref<512x64xbf16> -> memref<32x64xbf16, "shared">
    tile.copy<32x16> %in10[%o0_k, %c0] -> %s9 : memref<512x16xbf16> -> memref<32x16xbf16, "shared">
    tile.gemm<64x16x32> %s7, %s9 -> %acc0 transpose_a : memref<32x64xbf16, "shared">, memref<32x16xbf16, "shared"> -> memref<64x16xf32, "fragment">
  }
  func.return
}
