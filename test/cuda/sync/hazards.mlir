// RUN: tile-opt %s --split-input-file -p thread-sync | filecheck %s

// Each case is one hazard rule of §4.1-§4.2 on hand-written scheduled IR (128 threads).

// RAW between ops that map elements to threads differently: a barrier.
// CHECK-LABEL: func.func @raw_different_threads
// CHECK:       tile.copy<64x64> %A -> %s
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<64x32> %s -> %B
func.func @raw_different_threads(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// -----

// The same threads touch the same elements in the same order: no barrier.
// CHECK-LABEL: func.func @same_threads_exempt
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @same_threads_exempt(%A: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}

// -----

// Different buffers never conflict.
// CHECK-LABEL: func.func @different_buffers
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @different_buffers(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %t = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x32> %t -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// -----

// Disjoint regions of one buffer (proved by Z3): no barrier.
// CHECK-LABEL: func.func @disjoint_regions
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @disjoint_regions(%A: memref<64x64xf16>, %B: memref<32x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<32x64> %A[%c0, %c0] -> %s[%c0, %c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<32x32> %s[%c32, %c0] -> %B : memref<64x64xf16, "shared"> -> memref<32x32xf16>
  func.return
}

// -----

// WAR: a gemm (every warp reads the whole tile) then a copy overwriting it.
// CHECK-LABEL: func.func @war
// CHECK:       tile.gemm
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<64x64> %A -> %a
func.func @war(%A: memref<64x64xf16>) attributes {tile.threads = 128 : i64} {
  %a = memref.alloc() : memref<64x64xf16, "shared">
  %b = memref.alloc() : memref<64x64xf16, "shared">
  %c = memref.alloc() : memref<64x64xf32, "fragment">
  tile.gemm<64x64x64> %a, %b -> %c : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %A -> %a : memref<64x64xf16> -> memref<64x64xf16, "shared">
  func.return
}

// -----

// WAW with different thread mappings.
// CHECK-LABEL: func.func @waw
// CHECK:       tile.copy<64x64> %A -> %s
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<64x32> %W -> %s
func.func @waw(%A: memref<64x64xf16>, %W: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x32> %W -> %s : memref<64x32xf16> -> memref<64x64xf16, "shared">
  func.return
}

// -----

// Fragments are private to their threads: never a barrier.
// CHECK-LABEL: func.func @fragments_are_private
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @fragments_are_private() attributes {tile.threads = 128 : i64} {
  %zero = arith.constant 0.000000e+00 : f32
  %f = memref.alloc() : memref<64x64xf32, "fragment">
  %g = memref.alloc() : memref<64x32xf32, "fragment">
  tile.fill<64x64> %zero -> %f : f32 -> memref<64x64xf32, "fragment">
  tile.exp<64x32> %f -> %g : memref<64x64xf32, "fragment"> -> memref<64x32xf32, "fragment">
  func.return
}
