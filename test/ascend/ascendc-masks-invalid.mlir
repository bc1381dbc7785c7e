// RUN: not %python -m tilepipe.drivers.ascendc %s 2>&1 | filecheck %s
// The 910B-class vector unit compares half and float only (Compare takes int32 for
// EQ alone, Select no integers): an integer comparison is a diagnostic at the op.

// CHECK: ascendc-masks-invalid.mlir:[[# @LINE + 4]]:3: error: 'ascend.cmp' op compares i32 elements, which the vector unit's Compare and Select do not take (half and float only)
func.func @integer_compare() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xi32, "ub">
  %b = memref.alloc() : memref<64xi32, "ub">
  ascend.cmp<64> eq %a, %b -> %a : memref<64xi32, "ub">, memref<64xi32, "ub"> -> memref<64xi32, "ub">
  func.return
}
