// sm_90a: tma-copy asks the arena to start each shared operand of a gemm that will
// run on wgmma where its descriptor's swizzle pattern starts (arena.swizzle = the row
// bytes: 8 rows of them), whoever fills the tile; a gemm of wgmma's input types that
// cannot take it gets a remark saying why, and stays on mma.sync.  A kernel with
// tile.warpgroup_mma = false (tilepipe compile --no-wgmma) keeps every gemm off wgmma,
// silently: it asked.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p tma-copy | filecheck %s

// CHECK-LABEL: func.func @aligned_for_descriptors
// CHECK:         %A_s = memref.alloc() {arena.swizzle = 128 : i64} : memref<64x64xf16, "shared">
// CHECK:         %B_s = memref.alloc() {arena.swizzle = 64 : i64} : memref<64x32xf16, "shared">
func.func @aligned_for_descriptors(%C: memref<64x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  tile.gemm<64x32x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x32xf16, "shared"> -> memref<64x32xf32, "fragment">
  func.return
}

// -----

// CHECK-LABEL: func.func @rows_of_96_bytes
// CHECK-NOT:     arena.swizzle
func.func @rows_of_96_bytes(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x48xf16, "shared">
  %B_s = memref.alloc() : memref<48x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  // expected-remark @+1 {{gemm stays on mma.sync: A's stored rows of 96 bytes are no descriptor swizzle's (32, 64 or 128, or 128-byte panels a tensor-map copy lands), or its rows no multiple of 8}}
  tile.gemm<64x64x48> %A_s, %B_s -> %C_f : memref<64x48xf16, "shared">, memref<48x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

func.func @a_from_registers(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_f = memref.alloc() : memref<64x64xf16, "fragment">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  // expected-remark @+1 {{gemm stays on mma.sync: A is a register fragment combined with no wgmma accumulator of its rows (whose register layout wgmma's A takes, as P = cast(S) in attention)}}
  tile.gemm<64x64x64> %A_f, %B_s -> %C_f : memref<64x64xf16, "fragment">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

func.func @no_whole_slab(%C: memref<32x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<32x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<32x64xf32, "fragment">
  tile.fill<32x64> %zero -> %C_f : f32 -> memref<32x64xf32, "fragment">
  // expected-remark @+1 {{gemm stays on mma.sync: M = 32 is no whole 64-row slabs}}
  tile.gemm<32x64x64> %A_s, %B_s -> %C_f : memref<32x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<32x64xf32, "fragment">
  func.return
}

// -----

func.func @two_warps(%C: memref<64x64xf32>)
    attributes {tile.threads = 64 : i64, tile.target = "sm_90a"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  // expected-remark @+1 {{gemm stays on mma.sync: 64 threads are no whole warpgroups of 128}}
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// sm_90 has no wgmma: nothing to say, nothing asked.
// CHECK-LABEL: func.func @on_sm90
// CHECK-NOT:     arena.swizzle
func.func @on_sm90(%C: memref<64x64xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x48xf16, "shared">
  %B_s = memref.alloc() : memref<48x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x48> %A_s, %B_s -> %C_f : memref<64x48xf16, "shared">, memref<48x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// CHECK-LABEL: func.func @turned_off
// CHECK-NOT:     arena.swizzle
func.func @turned_off(%C: memref<64x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a", tile.warpgroup_mma = false} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  tile.gemm<64x32x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x32xf16, "shared"> -> memref<64x32xf32, "fragment">
  func.return
}
