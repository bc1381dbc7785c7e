// RUN: tile-opt %s --split-input-file -p async-copy,thread-sync | filecheck %s

// tile.atomic_add's destination is updated by one atomic read-modify-write per
// element: two atomic adds of the same bytes need no barrier (TileLang's "two
// atomics" exemption), whatever threads perform them; an atomic add and a plain
// access of the same bytes by other threads do, in either order.

// Two atomic adds of one global tile, in different thread mappings (the accumulator
// layout, then cooperative chunks): no barrier between them.  The shared source of
// the second is written in the accumulator layout first: that RAW needs one.
// CHECK-LABEL: func.func @two_atomic_adds
// CHECK:       tile.atomic_add<32x32> %C_f -> %G
// CHECK-NEXT:  tile.copy<32x32> %C_f -> %S
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.atomic_add<32x32> %S -> %G
// CHECK-NEXT:  tile.atomic_add<32x16> %S -> %G
// CHECK-NEXT:  func.return
func.func @two_atomic_adds(%A: memref<32x32xf16>, %G: memref<32x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %zero = arith.constant 0.000000e+00 : f32
  tile.fill<32x32> %zero -> %C_f : f32 -> memref<32x32xf32, "fragment">
  tile.copy<32x32> %A -> %A_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  pipeline.barrier
  tile.gemm<32x32x32> %A_s, %A_s -> %C_f : memref<32x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<32x32xf32, "fragment">
  tile.atomic_add<32x32> %C_f -> %G : memref<32x32xf32, "fragment"> -> memref<32x32xf32>
  tile.copy<32x32> %C_f -> %S : memref<32x32xf32, "fragment"> -> memref<32x32xf32, "shared">
  tile.atomic_add<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.atomic_add<32x16> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  func.return
}

// -----

// An atomic add, then a plain read of the same bytes by other threads: RAW, barrier.
// CHECK-LABEL: func.func @atomic_then_read
// CHECK:       tile.atomic_add<32x32> %S -> %G
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<32x16> %G -> %O
func.func @atomic_then_read(%G: memref<32x32xf32>, %O: memref<32x16xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  pipeline.barrier
  tile.atomic_add<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.copy<32x16> %G -> %O : memref<32x32xf32> -> memref<32x16xf32>
  func.return
}

// -----

// A plain write, then an atomic add of the same bytes by other threads: WAW, barrier.
// CHECK-LABEL: func.func @write_then_atomic
// CHECK:       tile.copy<32x16> %O -> %G
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.atomic_add<32x32> %S -> %G
func.func @write_then_atomic(%G: memref<32x32xf32>, %O: memref<32x16xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  tile.copy<32x16> %O -> %G : memref<32x16xf32> -> memref<32x32xf32>
  tile.atomic_add<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  func.return
}

// -----

// The same cooperative mapping on both sides: each element's atomic add and its
// later read are by one thread, in program order -- no barrier.
// CHECK-LABEL: func.func @same_mapping
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @same_mapping(%G: memref<32x32xf32>, %O: memref<32x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %S = memref.alloc() : memref<32x32xf32, "shared">
  %one = arith.constant 1.000000e+00 : f32
  tile.fill<32x32> %one -> %S : f32 -> memref<32x32xf32, "shared">
  tile.atomic_add<32x32> %S -> %G : memref<32x32xf32, "shared"> -> memref<32x32xf32>
  tile.copy<32x32> %G -> %O : memref<32x32xf32> -> memref<32x32xf32>
  func.return
}
