// merge-shared-memory after the pipelining passes: the chapter's GEMM (num_stages = 3)
// becomes 3 versions of A_s and B_s (recognized by their `mod 3` slots), packed
// side by side in one 96 KiB arena.

// RUN: tile-opt %examples/gemm.mlir -p pipeline-planning,inject-software-pipeline,merge-shared-memory | filecheck %s
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline,merge-shared-memory{report=text}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @gemm
// CHECK-NEXT:    %shared_arena = memref.alloc() {alignment = 16 : i64, arena.layout = {budget = 166912 : i64, no_reuse_bytes = 98304 : i64, peak_live_bytes = 98304 : i64, reuse = true, buffers = [{name = "A_s", offset = 0 : i64, bytes = 49152 : i64, versions = 3 : i64, {{.*}}}, {name = "B_s", offset = 49152 : i64, bytes = 49152 : i64, versions = 3 : i64, {{.*}}}]}} : memref<98304xi8, "shared">
// CHECK:         %A_s = memref.view %shared_arena[%A_s_offset][] : memref<98304xi8, "shared"> to memref<3x128x64xf16, "shared">
// CHECK:         %B_s = memref.view %shared_arena[%B_s_offset][] : memref<98304xi8, "shared"> to memref<3x64x128xf16, "shared">
// CHECK:         scf.for
// CHECK:           tile.gemm<128x128x64> %A_s[{{.*}}], %B_s[{{.*}}] -> %C_f

// REPORT:      arena @gemm shared (sm_80): 98304 B, budget 166912 B [OK], no-reuse sum 98304 B, peak live 98304 B
// REPORT-NEXT:   buffer
// REPORT-NEXT:   A_s {{.*}} 3 x 16384 {{ +}}16 {{ +}}0
// REPORT-NEXT:   B_s {{.*}} 3 x 16384 {{ +}}16 {{ +}}49152
