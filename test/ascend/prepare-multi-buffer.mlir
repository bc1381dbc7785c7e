// RUN: tile-opt %s --split-input-file -p ascend-prepare-multi-buffer | filecheck %s
// RUN: tile-opt %s --split-input-file -p 'ascend-prepare-multi-buffer{index_mode=counter}' | filecheck %s --check-prefix=OPTION
// RUN: not tile-opt %s -p 'ascend-prepare-multi-buffer{index_mode=lexical}' 2>&1 | filecheck %s --check-prefix=BAD-OPTION
// BAD-OPTION: error: 'builtin.module' op unknown index_mode 'lexical' (iteration or counter)

// Storage whose every iteration is one epoch (written first, then read) gets
// num_stages versions; an accumulator (read-modify-write across iterations, used after
// the loop) has no owner and keeps one.
// CHECK-LABEL: func.func @owners
// CHECK: %x_ub = memref.alloc() {ascend.versions = 3 : i64, ascend.index_mode = "iteration"}
// CHECK: %acc = memref.alloc() {ascend.versions = 1 : i64, ascend.index_mode = "iteration"}
func.func @owners(%x: memref<1024xf16>, %y: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %x_ub = memref.alloc() : memref<64xf16, "ub">
  %acc = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 3 {
    %off = arith.muli %i, %c64 : index
    tile.copy<64> %x[%off] -> %x_ub : memref<1024xf16> -> memref<64xf16, "ub">
    tile.add<64> %acc, %x_ub -> %acc : memref<64xf16, "ub">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  }
  tile.copy<64> %acc -> %y : memref<64xf16, "ub"> -> memref<64xf16>
  func.return
}

// -----

// num_stages is only the upper bound: 2 x 64 KiB UB buffers at 4 versions need
// 512 KiB but UB has 192 KiB, so versions are taken away (largest first, the first
// of equals) until they fit: 1 + 2 versions of 64 KiB.
// CHECK-LABEL: func.func @capacity
// CHECK: %a_ub = memref.alloc() {ascend.versions = 1 : i64
// CHECK: %b_ub = memref.alloc() {ascend.versions = 2 : i64
func.func @capacity(%a: memref<1048576xf16>, %b: memref<1048576xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32768 = arith.constant 32768 : index
  %a_ub = memref.alloc() : memref<32768xf16, "ub">
  %b_ub = memref.alloc() : memref<32768xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 4 {
    %off = arith.muli %i, %c32768 : index
    tile.copy<32768> %a[%off] -> %a_ub : memref<1048576xf16> -> memref<32768xf16, "ub">
    tile.copy<32768> %b[%off] -> %b_ub : memref<1048576xf16> -> memref<32768xf16, "ub">
    tile.add<32768> %a_ub, %b_ub -> %b_ub : memref<32768xf16, "ub">, memref<32768xf16, "ub"> -> memref<32768xf16, "ub">
    tile.copy<32768> %b_ub -> %a[%off] : memref<32768xf16, "ub"> -> memref<1048576xf16>
  }
  func.return
}

// -----

// A guarded epoch is still owned; its slot follows the iteration unless the alloc, its
// owner loop or the pass option asks for the counter of executed epochs.  Without a
// guard the two modes coincide and the pass records `iteration`.
// CHECK-LABEL: func.func @index_modes
// CHECK: %g_ub = memref.alloc() {ascend.versions = 2 : i64, ascend.index_mode = "iteration"}
// CHECK: %h_ub = memref.alloc() {ascend.index_mode = "counter", ascend.versions = 2 : i64}
// CHECK: %u_ub = memref.alloc() {ascend.index_mode = "iteration", ascend.versions = 2 : i64}
// With index_mode=counter, guarded storage that names no mode counts executed epochs.
// OPTION-LABEL: func.func @index_modes
// OPTION: %g_ub = memref.alloc() {ascend.versions = 2 : i64, ascend.index_mode = "counter"}
func.func @index_modes(%x: memref<1024xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %g_ub = memref.alloc() : memref<64xf16, "ub">
  %h_ub = memref.alloc() {ascend.index_mode = "counter"} : memref<64xf16, "ub">
  %u_ub = memref.alloc() {ascend.index_mode = "counter"} : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    scf.if %p {
      tile.copy<64> %x -> %g_ub : memref<1024xf16> -> memref<64xf16, "ub">
      tile.copy<64> %g_ub -> %x : memref<64xf16, "ub"> -> memref<1024xf16>
    } else {
      tile.copy<64> %x -> %h_ub : memref<1024xf16> -> memref<64xf16, "ub">
      tile.copy<64> %h_ub -> %x : memref<64xf16, "ub"> -> memref<1024xf16>
    }
    tile.copy<64> %x -> %u_ub : memref<1024xf16> -> memref<64xf16, "ub">
    tile.copy<64> %u_ub -> %x : memref<64xf16, "ub"> -> memref<1024xf16>
  }
  func.return
}

// -----

// The owner loop's ascend.index_mode applies to the storage it owns; the alloc's own
// attribute wins over it.
// CHECK-LABEL: func.func @loop_mode
// CHECK: %g_ub = memref.alloc() {ascend.versions = 3 : i64, ascend.index_mode = "counter"}
// CHECK: %h_ub = memref.alloc() {ascend.index_mode = "iteration", ascend.versions = 3 : i64}
func.func @loop_mode(%x: memref<1024xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %g_ub = memref.alloc() : memref<64xf16, "ub">
  %h_ub = memref.alloc() {ascend.index_mode = "iteration"} : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 3 {
    scf.if %p {
      tile.copy<64> %x -> %g_ub : memref<1024xf16> -> memref<64xf16, "ub">
      tile.copy<64> %g_ub -> %x : memref<64xf16, "ub"> -> memref<1024xf16>
      tile.copy<64> %x -> %h_ub : memref<1024xf16> -> memref<64xf16, "ub">
      tile.copy<64> %h_ub -> %x : memref<64xf16, "ub"> -> memref<1024xf16>
    }
  } {ascend.index_mode = "counter"}
  func.return
}
