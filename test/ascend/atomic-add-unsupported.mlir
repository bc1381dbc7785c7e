// RUN: tile-opt %s --verify-diagnostics -p ascend-resolve-core
// RUN: not tile-opt %s -p ascend 2>&1 | filecheck %s --check-prefix=FLOW

// tile.atomic_add (a UB tile added into GM) is not lowered to Ascend yet: the Ascend
// flow stops at the op with a located error instead of choosing a pipe for it.
// FLOW: atomic-add-unsupported.mlir:[[# @LINE + 7]]:3: error: 'tile.atomic_add' op is not supported on ascend910b yet
func.func @split_k_partial(%G: memref<64x64xf32, "gm">, %X: memref<64x64xf32, "gm">, %i: index)
    attributes {tile.grid = array<i64: 2>, tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %u = memref.alloc() : memref<16x64xf32, "ub">
  tile.copy<16x64> %X[%i, %c0] -> %u : memref<64x64xf32, "gm"> -> memref<16x64xf32, "ub">
  // expected-error @+1 {{'tile.atomic_add' op is not supported on ascend910b yet}}
  tile.atomic_add<16x64> %u -> %G[%i, %c0] : memref<16x64xf32, "ub"> -> memref<64x64xf32, "gm">
  func.return
}
