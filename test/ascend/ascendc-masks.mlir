// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// Coordinates, comparisons and selections as AscendC: the comparisons write one bit
// per element into the kernel's UB scratch `cmp_bits` (32 bytes for 256 elements);
// coordinates along the rows are CreateVecIndex + Adds per row, down the columns a
// Duplicate of the row's start + row number.

// CHECK-LABEL: void masks(
// CHECK:      AscendC::TBuf<AscendC::TPosition::VECCALC> cmp_bits_buf;
// CHECK-NEXT: pipe.InitBuffer(cmp_bits_buf, 32);
// CHECK-NEXT: AscendC::LocalTensor<uint8_t> cmp_bits = cmp_bits_buf.Get<uint8_t>();
// CHECK:      AscendC::Ln(x, x, 256);
// CHECK-NEXT: AscendC::Sqrt(y, x, 256);
// CHECK-NEXT: AscendC::Rsqrt(y, y, 256);
// CHECK-NEXT: for (int32_t row = 0; row < 2; ++row) {
// CHECK-NEXT:   AscendC::CreateVecIndex(m[row * 128], (float)0, 128);
// CHECK-NEXT:   AscendC::Adds(m[row * 128], m[row * 128], (float)1.5, 128);
// CHECK-NEXT: }
// CHECK-NEXT: for (int32_t row_1 = 0; row_1 < 2; ++row_1) {
// CHECK-NEXT:   AscendC::Duplicate(n[row_1 * 128], (int32_t)((int64_t)(int32_t)7 + (row_1 % 2)), 128);
// CHECK-NEXT: }
// CHECK-NEXT: AscendC::Compare(cmp_bits, x, m, AscendC::CMPMODE::LE, 256);
// CHECK-NEXT: AscendC::Duplicate(m, (float)1, 256);
// CHECK-NEXT: AscendC::Select(m, cmp_bits, m, (float)0, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, 256);
// CHECK-NEXT: AscendC::CompareScalar(cmp_bits, m, (float)0, AscendC::CMPMODE::NE, 256);
// CHECK-NEXT: AscendC::Select(y, cmp_bits, x, y, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, 256);
func.func @masks() attributes {tile.target = "ascend910b"} {
  %start = arith.constant 1.5 : f32
  %seven = arith.constant 7 : i32
  %x = memref.alloc() : memref<2x128xf32, "ub">
  %y = memref.alloc() : memref<2x128xf32, "ub">
  %m = memref.alloc() : memref<2x128xf32, "ub">
  %n = memref.alloc() : memref<2x128xi32, "ub">
  ascend.ln<2x128> %x -> %x : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  ascend.sqrt<2x128> %x -> %y : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  ascend.rsqrt<2x128> %y -> %y : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  ascend.iota<2x128> %start -> %m dim 1 : f32 -> memref<2x128xf32, "ub">
  ascend.iota<2x128> %seven -> %n dim 0 : i32 -> memref<2x128xi32, "ub">
  ascend.cmp<2x128> le %x, %m -> %m : memref<2x128xf32, "ub">, memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  ascend.select<2x128> %m, %x, %y -> %y : memref<2x128xf32, "ub">, memref<2x128xf32, "ub">, memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  func.return
}
