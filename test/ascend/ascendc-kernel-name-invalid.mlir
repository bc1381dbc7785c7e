// RUN: not %python -m tilepipe.drivers.ascendc %s 2>&1 | filecheck %s
// A kernel's name is its symbol for the host, so the printer does not rename a C++
// keyword: it is an error.

// CHECK: ascendc-kernel-name-invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op kernel name 'short' is a C++ keyword, which AscendC cannot name a kernel
func.func @short(%x: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  func.return
}
