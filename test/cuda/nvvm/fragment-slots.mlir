// A fragment with a version dimension: one alloca per version; a run-time version is
// staged (docs/nvvm.md, "Versioned register fragments"): the op writes a staging
// alloca, and each version's register takes its value where it is the selected one.
// A constant version picks its alloca directly.

// RUN: tile-opt %s -p lower-to-nvvm | filecheck %s

// CHECK-LABEL: gpu.func @versions(
// CHECK:         %[[V0:.*]] = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK-NEXT:    %[[STAGE:.*]] = memref.alloca() {alignment = 16 : i64} : memref<4xf32>
// CHECK:         scf.for
// CHECK:           memref.store %one, %[[STAGE]][
// CHECK:           %[[IS0:.*]] = arith.cmpi eq, %s,
// CHECK:           %[[IS1:.*]] = arith.cmpi eq, %s,
// CHECK:           %[[NEW:.*]] = memref.load %[[STAGE]][
// CHECK-NEXT:      %[[OLD0:.*]] = memref.load %[[V0]][
// CHECK-NEXT:      %[[SEL0:.*]] = arith.select %[[IS0]], %[[NEW]], %[[OLD0]] : f32
// CHECK-NEXT:      memref.store %[[SEL0]], %[[V0]][
// CHECK-NEXT:      %[[OLD1:.*]] = memref.load %[[V1]][
// CHECK-NEXT:      %[[SEL1:.*]] = arith.select %[[IS1]], %[[NEW]], %[[OLD1]] : f32
// CHECK-NEXT:      memref.store %[[SEL1]], %[[V1]][
// CHECK:         scf.yield
// CHECK:         memref.load %[[V1]][
// CHECK-NOT:     memref.load %[[V0]][
// CHECK:         gpu.return
func.func @versions(%X: memref<16x32xf32>, %n: index) attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %F = memref.alloc() : memref<2x16x32xf32, "fragment">
  scf.for %k = %c0 to %n step %c1 {
    %s = arith.remui %k, %c2 : index
    tile.fill<16x32> %one -> %F[%s, %c0, %c0] : f32 -> memref<2x16x32xf32, "fragment">
  }
  tile.copy<16x32> %F[%c1, %c0, %c0] -> %X : memref<2x16x32xf32, "fragment"> -> memref<16x32xf32>
  func.return
}
