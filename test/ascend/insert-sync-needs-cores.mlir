// RUN: tile-opt %s --verify-diagnostics -p ascend-insert-sync

func.func @no_cores(%x: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{has no pipe; run ascend-resolve-core first}}
  tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
  func.return
}
