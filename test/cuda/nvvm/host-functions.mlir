// lower-to-nvvm lowers kernels only: functions with a tile.* kernel attribute (or,
// unmarked, a body in the tile or pipeline dialect); host functions stay as written.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s
// RUN: tile-opt %s --split-input-file -p 'lower-to-nvvm{host-launch=true}' | filecheck %s --check-prefix=LAUNCH

// A host helper (index) -> index is left alone; the kernel moves to the gpu.module.
// CHECK-LABEL: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT:    func.func @helper(%n: index) -> index {
// CHECK-NEXT:      %r = arith.muli %n, %n : index
// CHECK-NEXT:      func.return %r : index
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.module @tilepipe_kernels {
// CHECK-NEXT:      gpu.func @k(%A: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 4, 1, 1>} {

// With host-launch, the kernel leaves a launcher of its name and signature.
// LAUNCH-LABEL: func.func @k(%A: memref<64xf32>) {
// LAUNCH-NEXT:    %0 = arith.constant 4 : index
// LAUNCH-NEXT:    %1 = arith.constant 1 : index
// LAUNCH-NEXT:    %2 = arith.constant 64 : index
// LAUNCH-NEXT:    gpu.launch_func @tilepipe_kernels::@k blocks in (%0, %1, %1) threads in (%2, %1, %1) args(%A : memref<64xf32>)
// LAUNCH-NEXT:    func.return
func.func @helper(%n: index) -> index {
  %r = arith.muli %n, %n : index
  return %r : index
}
func.func @k(%A: memref<64xf32>) attributes {tile.grid = array<i64: 4>, tile.threads = 64 : i64} {
  %zero = arith.constant 0.000000e+00 : f32
  %f = memref.alloc() : memref<64xf32, "fragment">
  tile.fill<64> %zero -> %f : f32 -> memref<64xf32, "fragment">
  tile.copy<64> %f -> %A : memref<64xf32, "fragment"> -> memref<64xf32>
  return
}

// -----

// The unit marker tile.kernel makes a function without tile ops a kernel; an
// external host declaration is fine.
// CHECK-LABEL: func.func private @external(index) -> index
// CHECK:         gpu.func @marked() kernel
// LAUNCH-LABEL: func.func private @external(index) -> index
// LAUNCH:         func.func @marked() {
func.func private @external(index) -> index
func.func @marked() attributes {tile.kernel} {
  return
}

// -----

// A grid the kernel computes from its arguments (tile.grid_dims) is computed the
// same way by its launcher, from the launch's own arguments: ceildiv(N, 64) blocks.
// CHECK-LABEL: gpu.func @by_size
// CHECK-NOT:     tile.grid_dims
// LAUNCH-LABEL: func.func @by_size(%A: memref<?xf32>) {
// LAUNCH-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// LAUNCH-NEXT:    %[[WIDTH:.*]] = arith.constant 64 : index
// LAUNCH-NEXT:    %[[N:.*]] = memref.dim %A, %[[ZERO]] : memref<?xf32>
// LAUNCH-NEXT:    %[[BLOCKS:.*]] = arith.ceildivui %[[N]], %[[WIDTH]] : index
// LAUNCH-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// LAUNCH-NEXT:    %[[THREADS:.*]] = arith.constant 64 : index
// LAUNCH-NEXT:    gpu.launch_func @tilepipe_kernels::@by_size blocks in (%[[BLOCKS]], %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]]) args(%A : memref<?xf32>)
func.func @by_size(%A: memref<?xf32>) attributes {tile.threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %n = memref.dim %A, %c0 : memref<?xf32>
  %blocks = arith.ceildivui %n, %c64 : index
  tile.grid_dims %blocks
  %bx = tile.block_id x
  %x0 = arith.muli %bx, %c64 : index
  %f = memref.alloc() : memref<64xf32, "fragment">
  tile.fill<64> %zero -> %f : f32 -> memref<64xf32, "fragment">
  tile.copy<64> %f -> %A[%x0] : memref<64xf32, "fragment"> -> memref<?xf32>
  return
}
