// The per-pass trace (the chapter's TL_LOWER_TRACE) goes to stderr, the final IR to stdout.
// RUN: tile-opt %examples/gemm.mlir -p pipeline-planning,inject-software-pipeline --print-between-passes 2>&1 >/dev/null | filecheck %s
// RUN: tile-opt %examples/gemm.mlir -p pipeline-planning --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=ALIAS

// CHECK:      // -----// IR Dump After pipeline-planning //----- //
// CHECK:        pipeline.for %ko = %c0 to %c16 step %c1 depth = 3 {
// CHECK:      // -----// IR Dump After inject-software-pipeline //----- //
// CHECK:        %A_s = memref.alloc() : memref<3x128x64xf16, "shared">
// CHECK:        scf.for %ko = %c2 to %c16 step %c1 {

// ALIAS:      // -----// IR Dump After pipeline-planning //----- //
