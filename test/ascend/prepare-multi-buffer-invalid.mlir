// RUN: tile-opt %s --split-input-file --verify-diagnostics -p ascend-prepare-multi-buffer

// expected-error @+1 {{ub needs 262144 bytes but ascend910b has 196608: a_ub (131072 B), b_ub (131072 B)}}
func.func @too_big(%a: memref<65536xf16>) attributes {tile.target = "ascend910b"} {
  %a_ub = memref.alloc() : memref<65536xf16, "ub">
  %b_ub = memref.alloc() : memref<65536xf16, "ub">
  tile.copy<65536> %a -> %a_ub : memref<65536xf16> -> memref<65536xf16, "ub">
  tile.copy<65536> %a -> %b_ub : memref<65536xf16> -> memref<65536xf16, "ub">
  func.return
}

// -----

func.func @bad_mode() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{unknown index mode 'lexical' (iteration or counter)}}
  %a_ub = memref.alloc() {ascend.index_mode = "lexical"} : memref<64xf16, "ub">
  func.return
}
