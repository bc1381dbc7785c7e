// The chapter's §3.4 "carry" scenario: a third 16 KiB tile, S_shared, is copied every
// iteration and read in the last stage, so every buffer is live across the whole
// pipelined loop and nothing can share bytes.  At num_stages = 4 the arena is the
// no-reuse sum, 192 KiB, and fits sm_90's 227 KiB; at 5 it is 240 KiB and does not.
// Both kernels are the scheduled level of inject-software-pipeline (prologue, steady
// state, epilogue; versioned buffers indexed by slot).

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p 'merge-shared-memory{report=text}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: tile-opt %s --split-input-file --verify-diagnostics -p merge-shared-memory | filecheck %s

// REPORT:      arena @gemm_carry_4 shared (sm_90): 196608 B, budget 232448 B [OK], no-reuse sum 196608 B, peak live 196608 B
// REPORT-NEXT:   buffer
// REPORT-NEXT:   A_shared {{.*}} 4 x 16384 {{ +}}16 {{ +}}0
// REPORT-NEXT:   B_shared {{.*}} 4 x 16384 {{ +}}16 {{ +}}65536
// REPORT-NEXT:   S_shared {{.*}} 4 x 16384 {{ +}}16 {{ +}}131072
// REPORT:      arena @gemm_carry_5 shared (sm_90): 245760 B, budget 232448 B [OVER], no-reuse sum 245760 B, peak live 245760 B

// CHECK-LABEL: func.func @gemm_carry_4
// CHECK:         %shared_arena = memref.alloc() {alignment = 16 : i64, arena.layout = {budget = 232448 : i64, no_reuse_bytes = 196608 : i64, peak_live_bytes = 196608 : i64, {{.*}}} : memref<196608xi8, "shared">
// CHECK:         %A_shared = memref.view %shared_arena[%A_shared_offset][] : memref<196608xi8, "shared"> to memref<4x128x64xf16, "shared">
// CHECK:         %B_shared_offset = arith.constant 65536 : index
// CHECK:         %S_shared_offset = arith.constant 131072 : index
// CHECK-NOT:     memref.alloc() {{.*}}"shared">
func.func @gemm_carry_4(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %S: memref<1024x1024xf16>, %C: memref<1024x1024xf32>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cv = arith.constant 4 : index
  %ctrip = arith.constant 13 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_shared = memref.alloc() {pipeline.versions = 4 : i64} : memref<4x128x64xf16, "shared">
  %B_shared = memref.alloc() {pipeline.versions = 4 : i64} : memref<4x64x128xf16, "shared">
  %S_shared = memref.alloc() {pipeline.versions = 4 : i64} : memref<4x128x64xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  %S_f = memref.alloc() : memref<128x64xf16, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  %k0_0 = arith.constant 0 : index
  %slot_0 = arith.constant 0 : index
  tile.copy<128x64> %A[%c0, %k0_0] -> %A_shared[%slot_0, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_0, %c0] -> %B_shared[%slot_0, %c0, %c0] : memref<1024x1024xf16> -> memref<4x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_0] -> %S_shared[%slot_0, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
  %k0_1 = arith.constant 64 : index
  %slot_1 = arith.constant 1 : index
  tile.copy<128x64> %A[%c0, %k0_1] -> %A_shared[%slot_1, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_1, %c0] -> %B_shared[%slot_1, %c0, %c0] : memref<1024x1024xf16> -> memref<4x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_1] -> %S_shared[%slot_1, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
  %k0_2 = arith.constant 128 : index
  %slot_2 = arith.constant 2 : index
  tile.copy<128x64> %A[%c0, %k0_2] -> %A_shared[%slot_2, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_2, %c0] -> %B_shared[%slot_2, %c0, %c0] : memref<1024x1024xf16> -> memref<4x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_2] -> %S_shared[%slot_2, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
  scf.for %k = %c0 to %ctrip step %c1 {
    %ahead = arith.addi %k, %cv : index
    %ahead1 = arith.subi %ahead, %c1 : index
    %k0 = arith.muli %ahead1, %c64 : index
    %write_slot = arith.remui %ahead1, %cv : index
    %read_slot = arith.remui %k, %cv : index
    tile.copy<128x64> %A[%c0, %k0] -> %A_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %c0] -> %B_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<4x64x128xf16, "shared">
    tile.copy<128x64> %S[%c0, %k0] -> %S_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<4x128x64xf16, "shared">
    tile.gemm<128x128x64> %A_shared[%read_slot, %c0, %c0], %B_shared[%read_slot, %c0, %c0] -> %C_f : memref<4x128x64xf16, "shared">, memref<4x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
    tile.copy<128x64> %S_shared[%read_slot, %c0, %c0] -> %S_f : memref<4x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  }
  %eslot_0 = arith.constant 1 : index
  tile.gemm<128x128x64> %A_shared[%eslot_0, %c0, %c0], %B_shared[%eslot_0, %c0, %c0] -> %C_f : memref<4x128x64xf16, "shared">, memref<4x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_0, %c0, %c0] -> %S_f : memref<4x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  %eslot_1 = arith.constant 2 : index
  tile.gemm<128x128x64> %A_shared[%eslot_1, %c0, %c0], %B_shared[%eslot_1, %c0, %c0] -> %C_f : memref<4x128x64xf16, "shared">, memref<4x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_1, %c0, %c0] -> %S_f : memref<4x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  %eslot_2 = arith.constant 3 : index
  tile.gemm<128x128x64> %A_shared[%eslot_2, %c0, %c0], %B_shared[%eslot_2, %c0, %c0] -> %C_f : memref<4x128x64xf16, "shared">, memref<4x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_2, %c0, %c0] -> %S_f : memref<4x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  tile.copy<128x128> %C_f -> %C[%c0, %c0] : memref<128x128xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}


// -----

// expected-error @+1 {{shared arena of 245760 bytes (240.0 KiB) exceeds the sm_90 budget of 232448 bytes (227.0 KiB) per block: A_shared 5 x 16384 B, B_shared 5 x 16384 B, S_shared 5 x 16384 B (no-reuse sum 245760 B, peak live 245760 B); num_stages = 4 fits (196608 B)}}
func.func @gemm_carry_5(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %S: memref<1024x1024xf16>, %C: memref<1024x1024xf32>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cv = arith.constant 5 : index
  %ctrip = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_shared = memref.alloc() {pipeline.versions = 5 : i64} : memref<5x128x64xf16, "shared">
  %B_shared = memref.alloc() {pipeline.versions = 5 : i64} : memref<5x64x128xf16, "shared">
  %S_shared = memref.alloc() {pipeline.versions = 5 : i64} : memref<5x128x64xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  %S_f = memref.alloc() : memref<128x64xf16, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  %k0_0 = arith.constant 0 : index
  %slot_0 = arith.constant 0 : index
  tile.copy<128x64> %A[%c0, %k0_0] -> %A_shared[%slot_0, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_0, %c0] -> %B_shared[%slot_0, %c0, %c0] : memref<1024x1024xf16> -> memref<5x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_0] -> %S_shared[%slot_0, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  %k0_1 = arith.constant 64 : index
  %slot_1 = arith.constant 1 : index
  tile.copy<128x64> %A[%c0, %k0_1] -> %A_shared[%slot_1, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_1, %c0] -> %B_shared[%slot_1, %c0, %c0] : memref<1024x1024xf16> -> memref<5x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_1] -> %S_shared[%slot_1, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  %k0_2 = arith.constant 128 : index
  %slot_2 = arith.constant 2 : index
  tile.copy<128x64> %A[%c0, %k0_2] -> %A_shared[%slot_2, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_2, %c0] -> %B_shared[%slot_2, %c0, %c0] : memref<1024x1024xf16> -> memref<5x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_2] -> %S_shared[%slot_2, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  %k0_3 = arith.constant 192 : index
  %slot_3 = arith.constant 3 : index
  tile.copy<128x64> %A[%c0, %k0_3] -> %A_shared[%slot_3, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  tile.copy<64x128> %B[%k0_3, %c0] -> %B_shared[%slot_3, %c0, %c0] : memref<1024x1024xf16> -> memref<5x64x128xf16, "shared">
  tile.copy<128x64> %S[%c0, %k0_3] -> %S_shared[%slot_3, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
  scf.for %k = %c0 to %ctrip step %c1 {
    %ahead = arith.addi %k, %cv : index
    %ahead1 = arith.subi %ahead, %c1 : index
    %k0 = arith.muli %ahead1, %c64 : index
    %write_slot = arith.remui %ahead1, %cv : index
    %read_slot = arith.remui %k, %cv : index
    tile.copy<128x64> %A[%c0, %k0] -> %A_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %c0] -> %B_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<5x64x128xf16, "shared">
    tile.copy<128x64> %S[%c0, %k0] -> %S_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<5x128x64xf16, "shared">
    tile.gemm<128x128x64> %A_shared[%read_slot, %c0, %c0], %B_shared[%read_slot, %c0, %c0] -> %C_f : memref<5x128x64xf16, "shared">, memref<5x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
    tile.copy<128x64> %S_shared[%read_slot, %c0, %c0] -> %S_f : memref<5x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  }
  %eslot_0 = arith.constant 2 : index
  tile.gemm<128x128x64> %A_shared[%eslot_0, %c0, %c0], %B_shared[%eslot_0, %c0, %c0] -> %C_f : memref<5x128x64xf16, "shared">, memref<5x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_0, %c0, %c0] -> %S_f : memref<5x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  %eslot_1 = arith.constant 3 : index
  tile.gemm<128x128x64> %A_shared[%eslot_1, %c0, %c0], %B_shared[%eslot_1, %c0, %c0] -> %C_f : memref<5x128x64xf16, "shared">, memref<5x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_1, %c0, %c0] -> %S_f : memref<5x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  %eslot_2 = arith.constant 4 : index
  tile.gemm<128x128x64> %A_shared[%eslot_2, %c0, %c0], %B_shared[%eslot_2, %c0, %c0] -> %C_f : memref<5x128x64xf16, "shared">, memref<5x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_2, %c0, %c0] -> %S_f : memref<5x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  %eslot_3 = arith.constant 0 : index
  tile.gemm<128x128x64> %A_shared[%eslot_3, %c0, %c0], %B_shared[%eslot_3, %c0, %c0] -> %C_f : memref<5x128x64xf16, "shared">, memref<5x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %S_shared[%eslot_3, %c0, %c0] -> %S_f : memref<5x128x64xf16, "shared"> -> memref<128x64xf16, "fragment">
  tile.copy<128x128> %C_f -> %C[%c0, %c0] : memref<128x128xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}

