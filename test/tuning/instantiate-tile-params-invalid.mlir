// RUN: tile-opt %s --split-input-file --verify-diagnostics -p 'instantiate-tile-params{values="block_K=48"}'
// RUN: not tile-opt %s --split-input-file -p 'instantiate-tile-params{values="block_k=48"}' 2>&1 | filecheck %s --check-prefix=TYPO
// TYPO: error: instantiate-tile-params: no kernel declares 'block_k' in 'tile.tune' (declared: block_K)
// Values a kernel cannot take: a tile count over a fixed extent the value does not
// divide, and a dimension that follows a parameter without naming it (the op's own
// verifier reports it in the instantiated kernel).

func.func @not_dividing() attributes {tile.tune = {block_K = [48, 64]}} {
  // expected-error @+1 {{counts tiles of 'block_K' over 1024, which block_K = 48 does not divide}}
  %k_tiles = arith.constant {tile.tiles_of = "block_K"} 16 : index
  %block_K = arith.constant {tile.param = "block_K"} 64 : index
  func.return
}

// -----

func.func @unnamed_dimension(%A: memref<1024x1024xf16>) attributes {tile.tune = {block_K = [48, 64]}} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() {tile.dims = ["", "block_K"]} : memref<128x64xf16, "shared">
  // expected-error @+1 {{'tile.copy' op dst region [0, 64) is out of bounds in dimension 1 of size 48}}
  tile.copy<128x64> %A[%c0, %c0] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
  func.return
}
