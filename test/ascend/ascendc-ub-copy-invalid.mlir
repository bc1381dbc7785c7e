// RUN: not %python -m tilepipe.drivers.ascendc %s 2>&1 | filecheck %s
// DataCopy moves whole 32-byte blocks UB -> UB: a shorter copy is a diagnostic at the
// op, not a silently truncated move.

// CHECK: ascendc-ub-copy-invalid.mlir:[[# @LINE + 4]]:3: error: 'ascend.data_copy' op moves 16 bytes UB -> UB; DataCopy moves whole 32-byte blocks
func.func @short_copy() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<8xf16, "ub">
  %b = memref.alloc() : memref<8xf16, "ub">
  ascend.data_copy<8> %a -> %b : memref<8xf16, "ub"> -> memref<8xf16, "ub">
  func.return
}
