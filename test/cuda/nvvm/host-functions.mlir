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
