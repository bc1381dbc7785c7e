// lower-to-nvvm warns, before ptxas, when the register fragments a thread holds
// cannot fit in the target's 255 registers per thread.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p lower-to-nvvm

// 4 warps over a 256x128 f32 accumulator: 256 registers per thread for C alone, plus
// the A and B fragments of a k-step of the 128x64 warp tile (8 x 4 + 8 x 2).
// expected-warning @+1 {{its register fragments need 304 registers per thread (C_f 256, gemm operands 48), more than the 255 of sm_80: ptxas will spill to local memory}}
func.func @too_wide() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<256x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x128xf16, "shared">
  %C_f = memref.alloc() : memref<256x128xf32, "fragment">
  tile.gemm<256x128x32> %A_s, %B_s -> %C_f : memref<256x32xf16, "shared">, memref<32x128xf16, "shared"> -> memref<256x128xf32, "fragment">
  func.return
}

// -----

// The example GEMM's 128x128 tile: 128 accumulator registers and 24 for the operands
// fit (no diagnostic).
func.func @fits() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<128x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.gemm<128x128x32> %A_s, %B_s -> %C_f : memref<128x32xf16, "shared">, memref<32x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

// f16 fragments pack two elements per register: 2 x 128 x 128 f16 elements over 128
// threads are 256 registers, beside nothing else.
// expected-warning @+1 {{its register fragments need 256 registers per thread (X 128, Y 128), more than the 255 of sm_90}}
func.func @packed_f16() attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %zero = arith.constant 0.0 : f16
  %X = memref.alloc() : memref<128x256xf16, "fragment">
  %Y = memref.alloc() : memref<128x256xf16, "fragment">
  tile.fill<128x256> %zero -> %X : f16 -> memref<128x256xf16, "fragment">
  tile.exp<128x256> %X -> %Y : memref<128x256xf16, "fragment"> -> memref<128x256xf16, "fragment">
  tile.exp<128x256> %Y -> %X : memref<128x256xf16, "fragment"> -> memref<128x256xf16, "fragment">
  func.return
}

// -----

// A fragment only ever filled with one constant is a splat that LLVM folds into the
// instructions reading it (the ReLU's zero beside a 128x128 f32 accumulator): it holds
// no registers, so 128 + 24 fit (no diagnostic).
func.func @relu_zero_is_a_splat() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.0 : f32
  %A_s = memref.alloc() : memref<128x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  %Z_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.gemm<128x128x32> %A_s, %B_s -> %C_f : memref<128x32xf16, "shared">, memref<32x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %Z_f : f32 -> memref<128x128xf32, "fragment">
  tile.max<128x128> %C_f, %Z_f -> %C_f : memref<128x128xf32, "fragment">, memref<128x128xf32, "fragment"> -> memref<128x128xf32, "fragment">
  func.return
}
