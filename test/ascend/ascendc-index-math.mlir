// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// Index arithmetic the Python frontend emits (cid // n, T.min of trip counts, a block
// offset as a float mask coordinate) has exact C++ forms: C++ divides toward zero, so
// floor division steps down when the signs differ.

// CHECK-LABEL: void index_math(GM_ADDR x, int64_t a, int64_t b) {
// CHECK:         int64_t [[Q:.*]] = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
// CHECK-NEXT:    int64_t [[M:.*]] = (a < [[Q]]) ? a : [[Q]];
// CHECK-NEXT:    int64_t [[X:.*]] = (b > [[M]]) ? b : [[M]];
// CHECK-NEXT:    int64_t [[I:.*]] = [[X]];
// CHECK-NEXT:    float [[F:.*]] = static_cast<float>([[I]]);
// CHECK-NEXT:    AscendC::Duplicate(y, [[F]], 64);
func.func @index_math(%x: memref<64xf32>, %a: index, %b: index) attributes {tile.target = "ascend910b"} {
  %y = memref.alloc() : memref<64xf32, "ub">
  %q = arith.floordivsi %a, %b : index
  %m = arith.minsi %a, %q : index
  %x2 = arith.maxsi %b, %m : index
  %i = arith.index_cast %x2 : index to i64
  %f = arith.sitofp %i : i64 to f32
  ascend.duplicate<64> %f -> %y : f32 -> memref<64xf32, "ub">
  func.return
}
