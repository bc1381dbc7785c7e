// A mixed cube + vector kernel on one Ascend AI Core: D = relu(A * B + Bias).
//
// The cube core (AIC) computes C = A * B for one 128x128 block, K streamed in 64-wide
// slices GM -> L1 (MTE2) -> L0A/L0B (MTE1) -> L0C (M), and the fixpipe (FIX) writes C
// to a GM workspace W.  The vector core (AIV) then streams W in 16-row tiles into UB
// (MTE2), adds the bias and clamps at zero on the vector unit (V), and writes D back
// (MTE3).  On the 910B the cube and the vector unit are separate cores sharing only
// GM, so the hand-over W is synchronized by a cross-core flag (FIX -> MTE2), and the
// AscendC printer splits the kernel into an AIC and an AIV section.
//
//   tilepipe compile examples/ascend_matmul_vector.mlir --target ascend --emit ascendc
func.func @matmul_bias_relu(%A: memref<128x256xf16>, %B: memref<256x128xf16>,
                            %Bias: memref<128x128xf32>, %W: memref<128x128xf32>,
                            %D: memref<128x128xf32>)
    attributes {tile.grid = array<i64: 1>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %a_l1 = memref.alloc() : memref<128x64xf16, "l1">
  %b_l1 = memref.alloc() : memref<64x128xf16, "l1">
  %a_l0a = memref.alloc() : memref<128x64xf16, "l0a">
  %b_l0b = memref.alloc() : memref<64x128xf16, "l0b">
  %c_l0c = memref.alloc() : memref<128x128xf32, "l0c">
  %w_ub = memref.alloc() : memref<16x128xf32, "ub">
  %bias_ub = memref.alloc() : memref<16x128xf32, "ub">
  %d_ub = memref.alloc() : memref<16x128xf32, "ub">
  %zero_ub = memref.alloc() : memref<16x128xf32, "ub">
  // Cube: C = A * B into L0C, then C -> W.
  tile.fill<128x128> %zero -> %c_l0c : f32 -> memref<128x128xf32, "l0c">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<128x64> %A[%c0, %k0] -> %a_l1 : memref<128x256xf16> -> memref<128x64xf16, "l1">
    tile.copy<64x128> %B[%k0, %c0] -> %b_l1 : memref<256x128xf16> -> memref<64x128xf16, "l1">
    tile.copy<128x64> %a_l1 -> %a_l0a : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
    tile.copy<64x128> %b_l1 -> %b_l0b : memref<64x128xf16, "l1"> -> memref<64x128xf16, "l0b">
    tile.gemm<128x128x64> %a_l0a, %b_l0b -> %c_l0c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  }
  tile.copy<128x128> %c_l0c -> %W : memref<128x128xf32, "l0c"> -> memref<128x128xf32>
  // Vector: D = max(W + Bias, 0), 16 rows at a time.
  tile.fill<16x128> %zero -> %zero_ub : f32 -> memref<16x128xf32, "ub">
  pipeline.for %r = %c0 to %c8 step %c1 num_stages = 2 {
    %row = arith.muli %r, %c16 : index
    tile.copy<16x128> %W[%row, %c0] -> %w_ub : memref<128x128xf32> -> memref<16x128xf32, "ub">
    tile.copy<16x128> %Bias[%row, %c0] -> %bias_ub : memref<128x128xf32> -> memref<16x128xf32, "ub">
    tile.add<16x128> %w_ub, %bias_ub -> %d_ub : memref<16x128xf32, "ub">, memref<16x128xf32, "ub"> -> memref<16x128xf32, "ub">
    tile.max<16x128> %d_ub, %zero_ub -> %d_ub : memref<16x128xf32, "ub">, memref<16x128xf32, "ub"> -> memref<16x128xf32, "ub">
    tile.copy<16x128> %d_ub -> %D[%row, %c0] : memref<16x128xf32, "ub"> -> memref<128x128xf32>
  }
  func.return
}
