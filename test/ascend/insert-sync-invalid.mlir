// RUN: tile-opt %s --split-input-file --verify-diagnostics -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync

func.func @guarded(%x: memref<64xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    // expected-error @+1 {{ascend-insert-sync does not support guarded epochs yet}}
    scf.if %p {
      tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
    }
  }
  func.return
}
