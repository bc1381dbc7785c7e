// A part of a fragment crosses threads through a scratch tile in shared memory
// (docs/nvvm.md, "Fragment operands through shared memory"): each thread stores its
// registers of the region, the block meets, and the op reads the scratch tile.

// RUN: tile-opt %s -p lower-to-nvvm | filecheck %s

// CHECK-LABEL: gpu.func @part(
// CHECK-SAME:    workgroup(%[[SHARED:.*]]: memref<1024xi8, 3 : i64>
// CHECK:         %[[SCRATCH:.*]] = memref.view %[[SHARED]][%{{.*}}][] : memref<1024xi8, 3 : i64> to memref<16x16xf32, 3 : i64>
// CHECK:         scf.if
// CHECK-NEXT:      %[[R:.*]] = memref.load %F[
// CHECK-NEXT:      memref.store %[[R]], %[[SCRATCH]][
// CHECK:         nvvm.barrier0
// CHECK-NEXT:    gpu.thread_id
// CHECK:         memref.load %[[SCRATCH]][
// CHECK:         memref.store %{{.*}}, %G[
// CHECK-NOT:     nvvm.barrier0
// CHECK:         gpu.return
func.func @part(%X: memref<32x32xf32>, %O: memref<16x16xf32>) attributes {tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %F = memref.alloc() : memref<32x32xf32, "fragment">
  %G = memref.alloc() : memref<16x16xf32, "fragment">
  tile.copy<32x32> %X -> %F : memref<32x32xf32> -> memref<32x32xf32, "fragment">
  tile.copy<16x16> %F[%c16, %c8] -> %G : memref<32x32xf32, "fragment"> -> memref<16x16xf32, "fragment">
  tile.copy<16x16> %G -> %O : memref<16x16xf32, "fragment"> -> memref<16x16xf32>
  func.return
}
