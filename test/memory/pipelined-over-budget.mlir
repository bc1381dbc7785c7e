// A budget overrun found at compile time through the whole pipeline: the chapter's
// GEMM at num_stages = 6 needs 6 versions of two 16 KiB tiles, 192 KiB, over sm_80's
// 163 KiB; five stages fit.

// RUN: tile-opt %s --verify-diagnostics -p pipeline-planning,inject-software-pipeline,merge-shared-memory

// expected-error @+1 {{shared arena of 196608 bytes (192.0 KiB) exceeds the sm_80 budget of 166912 bytes (163.0 KiB) per block: A_s 6 x 16384 B, B_s 6 x 16384 B (no-reuse sum 196608 B, peak live 196608 B); num_stages = 5 fits (163840 B)}}
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                %C: memref<1024x1024xf32>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64,
                tile.target = "sm_80"} {
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
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  pipeline.for %ko = %c0 to %c16 step %c1 num_stages = 6 {
    %k0 = arith.muli %ko, %c64 : index
    tile.copy<128x64> %A[%m0, %k0] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %n0] -> %B_s : memref<1024x1024xf16> -> memref<64x128xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.copy<128x128> %C_f -> %C[%m0, %n0] : memref<128x128xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}
