// lower-to-nvvm keeps source locations: each lowered op is located at the tile op it
// came from, the kernel's shared memory and the gpu.module at the kernel, so that the
// NVVM-level text (--mlir-print-debuginfo, tilepipe compile --mlir-print-debuginfo)
// points upstream's diagnostics at the source.
// RUN: tile-opt %s -p lower-to-nvvm --mlir-print-debuginfo | filecheck %s

// CHECK-LABEL: gpu.module @tilepipe_kernels {
// CHECK:         gpu.func @k(
// CHECK:           gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>> loc("{{.*}}locations.mlir":[[KERNEL:[0-9]+]]:1)
// CHECK-NEXT:      "memref.memory_space_cast"{{.*}}locations.mlir":[[KERNEL]]:1)
// CHECK:           "vector.load"(%A, {{.*}}locations.mlir":[[# @LINE + 11]]:3)
// CHECK:           "vector.store"({{.*}}, %S, {{.*}}locations.mlir":[[# @LINE + 10]]:3)
// CHECK:           gpu.return loc("{{.*}}locations.mlir":[[# @LINE + 10]]:3)
// CHECK-NEXT:    } loc("{{.*}}locations.mlir":[[KERNEL]]:1)
// CHECK-NEXT:  } loc("{{.*}}locations.mlir":[[KERNEL]]:1)
// CHECK-NEXT: } loc(

// 64 KiB of shared memory: more than a static allocation may have, so dynamic.
func.func @k(%A: memref<16384xf32>) attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %S = memref.alloc() : memref<16384xf32, "shared">
  tile.copy<16384> %A[%c0] -> %S : memref<16384xf32> -> memref<16384xf32, "shared">
  return
}
