// Ascend: each on-chip memory (L1, L0A, L0B, L0C, UB) gets its own arena with the
// capacity and default alignment of ascend910b's record (L0A/L0B 512 B, L0C 64 B,
// L1/UB 32 B), and its own budget check.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p merge-shared-memory | filecheck %s

// CHECK-LABEL: func.func @ascend_matmul
// CHECK-NEXT:    %l1_arena = memref.alloc() {alignment = 32 : i64, arena.layout = {budget = 524288 : i64, {{.*}}} : memref<16384xi8, "l1">
// CHECK-NEXT:    %l0a_arena = memref.alloc() {alignment = 512 : i64, arena.layout = {budget = 65536 : i64, {{.*}}} : memref<8192xi8, "l0a">
// CHECK-NEXT:    %l0b_arena = memref.alloc() {alignment = 512 : i64, arena.layout = {budget = 65536 : i64, {{.*}}} : memref<8192xi8, "l0b">
// CHECK-NEXT:    %l0c_arena = memref.alloc() {alignment = 64 : i64, arena.layout = {budget = 131072 : i64, {{.*}}} : memref<16384xi8, "l0c">
// CHECK-NEXT:    %ub_arena = memref.alloc() {alignment = 32 : i64, arena.layout = {budget = 196608 : i64, {{.*}}} : memref<16384xi8, "ub">
// CHECK:         %B_l1_offset = arith.constant 8192 : index
// CHECK-NEXT:    %B_l1 = memref.view %l1_arena[%B_l1_offset][] : memref<16384xi8, "l1"> to memref<64x64xf16, "l1">
// CHECK:         %A_l0 = memref.view %l0a_arena[%A_l0_offset][] : memref<8192xi8, "l0a"> to memref<64x64xf16, "l0a">
// CHECK:         %C_ub = memref.view %ub_arena[%C_ub_offset][] : memref<16384xi8, "ub"> to memref<64x64xf32, "ub">
// CHECK-NOT:     memref.alloc
func.func @ascend_matmul(%A: memref<256x256xf16, "gm">, %B: memref<256x256xf16, "gm">, %C: memref<256x256xf32, "gm">)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %A_l1 = memref.alloc() : memref<64x64xf16, "l1">
  %B_l1 = memref.alloc() : memref<64x64xf16, "l1">
  %A_l0 = memref.alloc() : memref<64x64xf16, "l0a">
  %B_l0 = memref.alloc() : memref<64x64xf16, "l0b">
  %C_l0 = memref.alloc() : memref<64x64xf32, "l0c">
  %C_ub = memref.alloc() : memref<64x64xf32, "ub">
  %zero = arith.constant 0.000000e+00 : f32
  tile.fill<64x64> %zero -> %C_l0 : f32 -> memref<64x64xf32, "l0c">
  tile.copy<64x64> %A[%c0, %c0] -> %A_l1 : memref<256x256xf16, "gm"> -> memref<64x64xf16, "l1">
  tile.copy<64x64> %B[%c0, %c0] -> %B_l1 : memref<256x256xf16, "gm"> -> memref<64x64xf16, "l1">
  tile.copy<64x64> %A_l1 -> %A_l0 : memref<64x64xf16, "l1"> -> memref<64x64xf16, "l0a">
  tile.copy<64x64> %B_l1 -> %B_l0 : memref<64x64xf16, "l1"> -> memref<64x64xf16, "l0b">
  tile.gemm<64x64x64> %A_l0, %B_l0 -> %C_l0 : memref<64x64xf16, "l0a">, memref<64x64xf16, "l0b"> -> memref<64x64xf32, "l0c">
  tile.copy<64x64> %C_l0 -> %C_ub : memref<64x64xf32, "l0c"> -> memref<64x64xf32, "ub">
  tile.copy<64x64> %C_ub -> %C[%c0, %c0] : memref<64x64xf32, "ub"> -> memref<256x256xf32, "gm">
  func.return
}

// -----

// A double-buffered UB tile of 2 x 128 KiB does not fit in 192 KiB of UB; one version
// would.
// expected-error @+1 {{ub arena of 262144 bytes (256.0 KiB) exceeds the ascend910b budget of 196608 bytes (192.0 KiB) per block: X_ub 2 x 131072 B (no-reuse sum 262144 B, peak live 262144 B); num_stages = 1 fits (131072 B)}}
func.func @ub_over_budget(%X: memref<1024x256xf32, "gm">) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %X_ub = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x128x256xf32, "ub">
  scf.for %k = %c0 to %c8 step %c1 {
    %slot = arith.remui %k, %c2 : index
    tile.copy<128x256> %X[%c0, %c0] -> %X_ub[%slot, %c0, %c0] : memref<1024x256xf32, "gm"> -> memref<2x128x256xf32, "ub">
    tile.exp<128x256> %X_ub[%slot, %c0, %c0] -> %X_ub[%slot, %c0, %c0] : memref<2x128x256xf32, "ub"> -> memref<2x128x256xf32, "ub">
    tile.copy<128x256> %X_ub[%slot, %c0, %c0] -> %X[%c0, %c0] : memref<2x128x256xf32, "ub"> -> memref<1024x256xf32, "gm">
  }
  func.return
}
