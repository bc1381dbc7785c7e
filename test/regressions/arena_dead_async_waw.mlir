// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet

// Fuzz regression (fuzz-2026-12): %Dead is never read, so merge-shared-memory gives its
// bytes to %S.  Both cp.async copies went into one commit group and no wait could sit
// between them (race WAW on %S; thread-sync warned about a "non-uniform condition").
// A cp.async run now ends at a copy into bytes the run already wrote through another
// buffer of the arena, so the first copy lands before the second is issued.

// CHECK-LABEL: func.func @k
// CHECK:       pipeline.async_copy<16x16> %A -> %Dead
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  pipeline.wait_group 0
// CHECK:       pipeline.async_copy<16x16> %A[%c16, %c0] -> %S
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  pipeline.wait_group 0
// CHECK-NEXT:  tile.copy<16x16> %S -> %E
func.func @k(%A: memref<64x16xf32>, %E: memref<16x16xf32>)
    attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %Dead = memref.alloc() : memref<16x16xf32, "shared">
  %S = memref.alloc() : memref<16x16xf32, "shared">
  tile.copy<16x16> %A -> %Dead : memref<64x16xf32> -> memref<16x16xf32, "shared">
  tile.copy<16x16> %A[%c16, %c0] -> %S : memref<64x16xf32> -> memref<16x16xf32, "shared">
  tile.copy<16x16> %S -> %E : memref<16x16xf32, "shared"> -> memref<16x16xf32>
  func.return
}
