// RUN: tile-opt %s --verify-diagnostics -p ascend-materialize-multi-buffer

func.func @counter(%x: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{the counter index mode is not materialized yet (guarded epochs)}}
  %u = memref.alloc() {ascend.versions = 2 : i64, ascend.index_mode = "counter"} : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
  }
  func.return
}
