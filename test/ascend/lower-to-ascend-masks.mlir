// RUN: tile-opt %s -p lower-to-ascend | filecheck %s
// RUN: tile-opt %s -p lower-to-ascend | tile-opt --print-op-generic | tile-opt | filecheck %s

// Logarithms, square roots, coordinates, comparisons and selections on UB become
// the ascend vector ops of the same meaning (tile.log -> ascend.ln), with their
// predicate and dimension; they round-trip through the generic form.
// CHECK-LABEL: func.func @masks_and_math
// CHECK:      ascend.ln<2x128> %x -> %x : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
// CHECK-NEXT: ascend.sqrt<2x128> %x -> %y : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
// CHECK-NEXT: ascend.rsqrt<2x128> %y -> %y : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
// CHECK-NEXT: ascend.iota<2x128> %start -> %m dim 1 : f32 -> memref<2x128xf32, "ub">
// CHECK-NEXT: ascend.cmp<2x128> lt %x, %m -> %m : memref<2x128xf32, "ub">, memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
// CHECK-NEXT: ascend.select<2x128> %m, %x, %y -> %y : memref<2x128xf32, "ub">, memref<2x128xf32, "ub">, memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
// CHECK-NOT: tile.
func.func @masks_and_math() attributes {tile.target = "ascend910b"} {
  %start = arith.constant 1.0 : f32
  %x = memref.alloc() : memref<2x128xf32, "ub">
  %y = memref.alloc() : memref<2x128xf32, "ub">
  %m = memref.alloc() : memref<2x128xf32, "ub">
  tile.log<2x128> %x -> %x : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  tile.sqrt<2x128> %x -> %y : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  tile.rsqrt<2x128> %y -> %y : memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  tile.iota<2x128> %start -> %m dim 1 : f32 -> memref<2x128xf32, "ub">
  tile.cmp<2x128> lt %x, %m -> %m : memref<2x128xf32, "ub">, memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  tile.select<2x128> %m, %x, %y -> %y : memref<2x128xf32, "ub">, memref<2x128xf32, "ub">, memref<2x128xf32, "ub"> -> memref<2x128xf32, "ub">
  func.return
}
