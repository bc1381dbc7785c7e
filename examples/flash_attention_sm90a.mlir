// Flash attention (forward, one head) on Hopper (sm_90a), P kept in registers: the
// online-softmax loop of flash_attention.mlir (same statistics, same results), except
// that the weights P = exp(S - m_new) are cast into an f16 register fragment instead
// of a shared tile -- TileLang's acc_s -> acc_s_cast:
//
//   S = Q·K^T                        (wgmma, Q and K from shared memory)
//   P = cast(exp(S - m_new))         (f32 fragment -> f16 fragment, same layout)
//   O = O * alpha + P·V              (wgmma with A = P's registers, V from shared)
//
// The cast fragment takes S's register layout (wgmma's accumulator layout), which is
// wgmma's layout of a register A (docs/nvvm.md, "wgmma"): P·V reads P straight from
// the registers the softmax left it in -- no store to shared memory, no barrier before
// the gemm, no proxy fence between the stores and wgmma's async-proxy reads.
func.func @flash_attention(%Q: memref<1024x64xf16>, %K: memref<1024x64xf16>,
                           %V: memref<1024x64xf16>, %O: memref<1024x64xf32>)
    attributes {tile.grid = array<i64: 16, 1>, tile.threads = 128 : i64,
                tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %minus_inf = arith.constant 0xFF800000 : f32
  %bx = tile.block_id x
  %q0 = arith.muli %bx, %c64 : index
  %Q_s = memref.alloc() : memref<64x64xf16, "shared">
  %K_s = memref.alloc() : memref<64x64xf16, "shared">
  %V_s = memref.alloc() : memref<64x64xf16, "shared">
  %m = memref.alloc() : memref<64xf32, "shared">
  %m_new = memref.alloc() : memref<64xf32, "shared">
  %alpha = memref.alloc() : memref<64xf32, "shared">
  %l = memref.alloc() : memref<64xf32, "shared">
  %l_tile = memref.alloc() : memref<64xf32, "shared">
  %S_f = memref.alloc() : memref<64x64xf32, "fragment">
  %P_f = memref.alloc() : memref<64x64xf16, "fragment">
  %rows_of_S = memref.alloc() : memref<64x64xf32, "fragment">
  %O_f = memref.alloc() : memref<64x64xf32, "fragment">
  %rows_of_O = memref.alloc() : memref<64x64xf32, "fragment">
  tile.copy<64x64> %Q[%q0, %c0] -> %Q_s : memref<1024x64xf16> -> memref<64x64xf16, "shared">
  tile.fill<64> %minus_inf -> %m : f32 -> memref<64xf32, "shared">
  tile.fill<64> %zero -> %l : f32 -> memref<64xf32, "shared">
  tile.fill<64x64> %zero -> %O_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %j = %c0 to %c16 step %c1 num_stages = 2 {
    %kv0 = arith.muli %j, %c64 : index
    tile.copy<64x64> %K[%kv0, %c0] -> %K_s : memref<1024x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %V[%kv0, %c0] -> %V_s : memref<1024x64xf16> -> memref<64x64xf16, "shared">
    // S = Q·K^T
    tile.fill<64x64> %zero -> %S_f : f32 -> memref<64x64xf32, "fragment">
    tile.gemm<64x64x64> %Q_s, %K_s -> %S_f transpose_b : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
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
    tile.cast<64x64> %S_f -> %P_f : memref<64x64xf32, "fragment"> -> memref<64x64xf16, "fragment">
    tile.broadcast<64x64> %alpha -> %rows_of_O axis 1 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
    tile.mul<64x64> %O_f, %rows_of_O -> %O_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
    tile.gemm<64x64x64> %P_f, %V_s -> %O_f : memref<64x64xf16, "fragment">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  // O = O / l
  tile.broadcast<64x64> %l -> %rows_of_O axis 1 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
  tile.div<64x64> %O_f, %rows_of_O -> %O_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %O_f -> %O[%q0, %c0] : memref<64x64xf32, "fragment"> -> memref<1024x64xf32>
  func.return
}
