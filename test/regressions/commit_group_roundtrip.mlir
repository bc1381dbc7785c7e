// For a dynamic trip count, async-copy closes the prologue's group with an
// operand-less pipeline.commit_group (its copy sits inside a guard).  Its old form
// `pipeline.commit_group %t` made the parser swallow the `%x` of the next line:
// tile-opt could not read its own output ("error:  in block definition", with an
// empty message).  The tokens are bracketed now, and the output reads back unchanged.
// (Since the async-proxy change the pre-loop copy of B joins that group, so the commit after the
// guard carries B's token; the operand-less form is in
// test/dialects/pipeline_sync/roundtrip.mlir.)

// RUN: tile-opt %s -p %{cuda:scheduled} -o %t.mlir
// RUN: filecheck %s < %t.mlir
// RUN: tile-opt %t.mlir | filecheck %s
// RUN: tile-opt %t.mlir --print-op-generic | tile-opt | filecheck %s
// RUN: tile-run %t.mlir --compare-with %s --check-races --quiet --index-arg n=0,1,2,3,5

// CHECK-LABEL: func.func @kernel
// CHECK:         %[[B:.*]] = pipeline.async_copy<32x32> %B
// CHECK:         scf.if
// CHECK:           pipeline.async_copy
// CHECK:         }
// CHECK-NEXT:    pipeline.commit_group [%[[B]]]
// CHECK-NEXT:    %{{.*}} = arith.constant 2 : index
// CHECK:         scf.for
// CHECK:           %[[T:.*]] = pipeline.async_copy
// CHECK-NEXT:      pipeline.commit_group [%[[T]]]
func.func @kernel(%A: memref<1088x32xf16>, %B: memref<32x32xf16>, %C: memref<64x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.copy<32x32> %B -> %B_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 2 {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x32> %A[%row, %c0] -> %A_s : memref<1088x32xf16> -> memref<64x32xf16, "shared">
    tile.gemm<64x32x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<64x32xf32, "fragment">
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}
