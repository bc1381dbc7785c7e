// examples/flash_attention.mlir with a dynamic sequence length L (any L >= 1, not
// necessarily a multiple of the 64-row K/V block).  The grid follows L (ceildiv(L, 64)
// blocks of 64 query rows) and so does the pipelined loop over the K/V blocks.
//
// Boundary tiles read 0 past the sequence end (docs/semantics.md), which is what the
// second gemm needs (a padded V row adds nothing), but a padded key would still get a
// score S = 0 and take part in the softmax.  The kernel masks it with %key_valid, an
// additive key mask written as validity: 1.0 for each of the L keys (the caller's
// array), read as 0 past the end.  bias = (valid - 1) * 2^100 is 0 for a real key and
// -2^100 for a padded one, and exp(S + bias - m) is exactly 0 there.
//
//   tile-run examples/flash_attention_dynamic.mlir --shape Q=65x64 --shape K=65x64 \
//       --shape V=65x64 --shape O=65x64 -i ones.npz     # key_valid = np.ones(65)
func.func @flash_attention_dynamic(%Q: memref<?x64xf16>, %K: memref<?x64xf16>,
                                   %V: memref<?x64xf16>, %O: memref<?x64xf32>,
                                   %key_valid: memref<?xf32>)
    attributes {tile.threads = 128 : i64,
                tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %big = arith.constant 0x71800000 : f32
  %minus_inf = arith.constant 0xFF800000 : f32
  %L = memref.dim %Q, %c0 : memref<?x64xf16>
  %blocks = arith.ceildivui %L, %c64 : index
  tile.grid_dims %blocks
  %bx = tile.block_id x
  %q0 = arith.muli %bx, %c64 : index
  %Q_s = memref.alloc() : memref<64x64xf16, "shared">
  %K_s = memref.alloc() : memref<64x64xf16, "shared">
  %V_s = memref.alloc() : memref<64x64xf16, "shared">
  %P_s = memref.alloc() : memref<64x64xf16, "shared">
  %m = memref.alloc() : memref<64xf32, "shared">
  %m_new = memref.alloc() : memref<64xf32, "shared">
  %alpha = memref.alloc() : memref<64xf32, "shared">
  %l = memref.alloc() : memref<64xf32, "shared">
  %l_tile = memref.alloc() : memref<64xf32, "shared">
  %S_f = memref.alloc() : memref<64x64xf32, "fragment">
  %rows_of_S = memref.alloc() : memref<64x64xf32, "fragment">
  %O_f = memref.alloc() : memref<64x64xf32, "fragment">
  %rows_of_O = memref.alloc() : memref<64x64xf32, "fragment">
  %valid = memref.alloc() : memref<64xf32, "shared">
  %ones = memref.alloc() : memref<64xf32, "shared">
  %bigs = memref.alloc() : memref<64xf32, "shared">
  %bias = memref.alloc() : memref<64xf32, "shared">
  %bias_of_S = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64> %one -> %ones : f32 -> memref<64xf32, "shared">
  tile.fill<64> %big -> %bigs : f32 -> memref<64xf32, "shared">
  tile.copy<64x64> %Q[%q0, %c0] -> %Q_s : memref<?x64xf16> -> memref<64x64xf16, "shared">
  tile.fill<64> %minus_inf -> %m : f32 -> memref<64xf32, "shared">
  tile.fill<64> %zero -> %l : f32 -> memref<64xf32, "shared">
  tile.fill<64x64> %zero -> %O_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %j = %c0 to %blocks step %c1 num_stages = 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy<64x64> %K[%kv0, %c0] -> %K_s : memref<?x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %V[%kv0, %c0] -> %V_s : memref<?x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64> %key_valid[%kv0] -> %valid : memref<?xf32> -> memref<64xf32, "shared">
    // S = Q·K^T
    tile.fill<64x64> %zero -> %S_f : f32 -> memref<64x64xf32, "fragment">
    tile.gemm<64x64x64> %Q_s, %K_s -> %S_f transpose_b : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
    // S += (valid - 1) * 2^100: padded keys (past L) drop out of the softmax
    tile.sub<64> %valid, %ones -> %bias : memref<64xf32, "shared">, memref<64xf32, "shared"> -> memref<64xf32, "shared">
    tile.mul<64> %bias, %bigs -> %bias : memref<64xf32, "shared">, memref<64xf32, "shared"> -> memref<64xf32, "shared">
    tile.broadcast<64x64> %bias -> %bias_of_S axis 0 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
    tile.add<64x64> %S_f, %bias_of_S -> %S_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
    // m_new = max(m, rowmax(S)), alpha = exp(m - m_new)
    tile.reduce<64x64> max %S_f -> %m_new axis 1 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
    tile.max<64> %m, %m_new -> %m_new : memref<64xf32, "shared">, memref<64xf32, "shared"> -> memref<64xf32, "shared">
    tile.sub<64> %m, %m_new -> %alpha : memref<64xf32, "shared">, memref<64xf32, "shared"> -> memref<64xf32, "shared">
    tile.exp<64> %alpha -> %alpha : memref<64xf32, "shared"> -> memref<64xf32, "shared">
    // P = exp(S - m_new)
    tile.broadcast<64x64> %m_new -> %rows_of_S axis 1 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
    tile.sub<64x64> %S_f, %rows_of_S -> %S_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
    tile.exp<64x64> %S_f -> %S_f : memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
    // l = l * alpha + rowsum(P), m = m_new
    tile.reduce<64x64> sum %S_f -> %l_tile axis 1 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
    tile.mul<64> %l, %alpha -> %l : memref<64xf32, "shared">, memref<64xf32, "shared"> -> memref<64xf32, "shared">
    tile.add<64> %l, %l_tile -> %l : memref<64xf32, "shared">, memref<64xf32, "shared"> -> memref<64xf32, "shared">
    tile.copy<64> %m_new -> %m : memref<64xf32, "shared"> -> memref<64xf32, "shared">
    // O = O * alpha + P·V
    tile.cast<64x64> %S_f -> %P_s : memref<64x64xf32, "fragment"> -> memref<64x64xf16, "shared">
    tile.broadcast<64x64> %alpha -> %rows_of_O axis 1 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
    tile.mul<64x64> %O_f, %rows_of_O -> %O_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
    tile.gemm<64x64x64> %P_s, %V_s -> %O_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  // O = O / l
  tile.broadcast<64x64> %l -> %rows_of_O axis 1 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
  tile.div<64x64> %O_f, %rows_of_O -> %O_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %O_f -> %O[%q0, %c0] : memref<64x64xf32, "fragment"> -> memref<?x64xf32>
  func.return
}
