// The chapter's §3.4 "epilogue" scenario: GEMM with 128x128x64 blocks in f16 at
// num_stages = 2 (A_shared and B_shared have 2 versions of 16 KiB) plus a 32 KiB
// C_shared used only after the loop.  No-reuse sum 96 KiB; the arena is 64 KiB because
// C_shared is born after A_shared and B_shared die and lands at offset 0; B_shared sits
// at 32 KiB.  With disable-reuse (§8.2) every buffer keeps its own bytes: 96 KiB.

// RUN: tile-opt %s -p merge-shared-memory | filecheck %s
// RUN: tile-opt %s -p 'merge-shared-memory{disable-reuse=true}' | filecheck %s --check-prefix=NOREUSE
// RUN: tile-opt %s -p 'merge-shared-memory{report=text}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @gemm_epilogue
// CHECK-NEXT:    %shared_arena = memref.alloc() {alignment = 16 : i64, arena.layout = {budget = 232448 : i64, no_reuse_bytes = 98304 : i64, peak_live_bytes = 65536 : i64, reuse = true, buffers = [
// CHECK-SAME:      {name = "A_shared", offset = 0 : i64, bytes = 32768 : i64, versions = 2 : i64, alignment = 16 : i64, live = array<i64: [[A_START:[0-9]+]], [[LOOP_END:[0-9]+]]>},
// CHECK-SAME:      {name = "B_shared", offset = 32768 : i64, bytes = 32768 : i64, versions = 2 : i64, alignment = 16 : i64, live = array<i64: {{[0-9]+}}, [[LOOP_END]]>},
// CHECK-SAME:      {name = "C_shared", offset = 0 : i64, bytes = 32768 : i64, versions = 1 : i64, alignment = 16 : i64, live = array<i64: {{[0-9]+}}, {{[0-9]+}}>}]}}
// CHECK-SAME:      : memref<65536xi8, "shared">
// CHECK:         %A_shared_offset = arith.constant 0 : index
// CHECK-NEXT:    %A_shared = memref.view %shared_arena[%A_shared_offset][] : memref<65536xi8, "shared"> to memref<2x128x64xf16, "shared">
// CHECK-NEXT:    %B_shared_offset = arith.constant 32768 : index
// CHECK-NEXT:    %B_shared = memref.view %shared_arena[%B_shared_offset][] : memref<65536xi8, "shared"> to memref<2x64x128xf16, "shared">
// CHECK-NEXT:    %C_shared_offset = arith.constant 0 : index
// CHECK-NEXT:    %C_shared = memref.view %shared_arena[%C_shared_offset][] : memref<65536xi8, "shared"> to memref<128x128xf16, "shared">
// CHECK-NEXT:    %C_f = memref.alloc() : memref<128x128xf32, "fragment">
// CHECK:         tile.cast<128x128> %C_f -> %C_shared

// NOREUSE-LABEL: func.func @gemm_epilogue
// NOREUSE:         reuse = false
// NOREUSE-SAME:    : memref<98304xi8, "shared">
// NOREUSE:         %A_shared_offset = arith.constant 0 : index
// NOREUSE:         %B_shared_offset = arith.constant 32768 : index
// NOREUSE:         %C_shared_offset = arith.constant 65536 : index

// REPORT:      arena @gemm_epilogue shared (sm_90): 65536 B, budget 232448 B [OK], no-reuse sum 98304 B, peak live 65536 B, arena/peak 1.00
// REPORT-NEXT:   buffer  {{ +}}live     versions x bytes  align   offset
// REPORT-NEXT:   A_shared {{ +}}[{{[0-9]+}}, {{[0-9]+}}] {{ +}}2 x 16384 {{ +}}16 {{ +}}0
// REPORT-NEXT:   C_shared {{ +}}[{{[0-9]+}}, {{[0-9]+}}] {{ +}}1 x 32768 {{ +}}16 {{ +}}0
// REPORT-NEXT:   B_shared {{ +}}[{{[0-9]+}}, {{[0-9]+}}] {{ +}}2 x 16384 {{ +}}16 {{ +}}32768

func.func @gemm_epilogue(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                         %C: memref<1024x1024xf16>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64,
                tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c15 = arith.constant 15 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_shared = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x128x64xf16, "shared">
  %B_shared = memref.alloc() {pipeline.versions = 2 : i64} : memref<2x64x128xf16, "shared">
  %C_shared = memref.alloc() : memref<128x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  tile.copy<128x64> %A[%c0, %c0] -> %A_shared[%c0, %c0, %c0] : memref<1024x1024xf16> -> memref<2x128x64xf16, "shared">
  tile.copy<64x128> %B[%c0, %c0] -> %B_shared[%c0, %c0, %c0] : memref<1024x1024xf16> -> memref<2x64x128xf16, "shared">
  scf.for %k = %c0 to %c15 step %c1 {
    %next = arith.addi %k, %c1 : index
    %k0 = arith.muli %next, %c64 : index
    %write_slot = arith.remui %next, %c2 : index
    %read_slot = arith.remui %k, %c2 : index
    tile.copy<128x64> %A[%c0, %k0] -> %A_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<2x128x64xf16, "shared">
    tile.copy<64x128> %B[%k0, %c0] -> %B_shared[%write_slot, %c0, %c0] : memref<1024x1024xf16> -> memref<2x64x128xf16, "shared">
    tile.gemm<128x128x64> %A_shared[%read_slot, %c0, %c0], %B_shared[%read_slot, %c0, %c0] -> %C_f : memref<2x128x64xf16, "shared">, memref<2x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.gemm<128x128x64> %A_shared[%c1, %c0, %c0], %B_shared[%c1, %c0, %c0] -> %C_f : memref<2x128x64xf16, "shared">, memref<2x64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  tile.cast<128x128> %C_f -> %C_shared : memref<128x128xf32, "fragment"> -> memref<128x128xf16, "shared">
  tile.copy<128x128> %C_shared -> %C[%c0, %c0] : memref<128x128xf16, "shared"> -> memref<1024x1024xf16>
  func.return
}
