// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// SSA names that are C++ keywords (%short, %new) get a suffix in the AscendC source.

// CHECK-LABEL: void names(GM_ADDR x, int64_t n) {
// CHECK:         bool short_1 = n <= 2;
// CHECK-NEXT:    if (short_1) {
// CHECK-NEXT:      AscendC::DataCopy(new_1, x_gm, 64);
func.func @names(%x: memref<64xf16>, %n: index) attributes {tile.target = "ascend910b"} {
  %c2 = arith.constant 2 : index
  %new = memref.alloc() : memref<64xf16, "ub">
  %short = arith.cmpi sle, %n, %c2 : index
  scf.if %short {
    ascend.data_copy<64> %x -> %new : memref<64xf16> -> memref<64xf16, "ub">
  }
  func.return
}
