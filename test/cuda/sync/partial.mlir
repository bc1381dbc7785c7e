// RUN: tile-opt %s --split-input-file -p thread-sync | filecheck %s

// A cooperative tile gives each thread one 16-byte chunk (8 f16): a 32x16 tile
// occupies threads 0..63 of 128, so the barrier only needs those two warps
// (bar.sync 1, 64).  A 96x8 tile occupies three warps and gets its own id.
// CHECK-LABEL: func.func @partial
// CHECK:       tile.copy<32x16> %A -> %s
// CHECK-NEXT:  pipeline.barrier id = 1, threads = 64
// CHECK-NEXT:  tile.copy<32x8> %s -> %B
// CHECK:       tile.copy<96x8> %C -> %t
// CHECK-NEXT:  pipeline.barrier id = 2, threads = 96
// CHECK-NEXT:  tile.copy<48x8> %t[%c48, %c0] -> %D
func.func @partial(%A: memref<32x16xf16>, %B: memref<32x8xf16>, %C: memref<96x8xf16>, %D: memref<48x8xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %s = memref.alloc() : memref<32x16xf16, "shared">
  %t = memref.alloc() : memref<96x8xf16, "shared">
  tile.copy<32x16> %A -> %s : memref<32x16xf16> -> memref<32x16xf16, "shared">
  tile.copy<32x8> %s -> %B : memref<32x16xf16, "shared"> -> memref<32x8xf16>
  tile.copy<96x8> %C -> %t : memref<96x8xf16> -> memref<96x8xf16, "shared">
  tile.copy<48x8> %t[%c48, %c0] -> %D : memref<96x8xf16, "shared"> -> memref<48x8xf16>
  func.return
}

// -----

// Involving all threads gives a full barrier.
// CHECK-LABEL: func.func @full
// CHECK:       pipeline.barrier{{$}}
func.func @full(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  func.return
}

// -----

// A cast out of a register fragment follows the fragment's layout, not chunks: the
// copy that reads its result from shared memory needs a barrier even over the same tile.
// CHECK-LABEL: func.func @from_registers
// CHECK:       tile.cast<64x64> %f -> %s
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  tile.copy<64x64> %s -> %B
func.func @from_registers(%B: memref<64x64xf16>) attributes {tile.threads = 128 : i64} {
  %zero = arith.constant 0.000000e+00 : f32
  %f = memref.alloc() : memref<64x64xf32, "fragment">
  %s = memref.alloc() : memref<64x64xf16, "shared">
  tile.fill<64x64> %zero -> %f : f32 -> memref<64x64xf32, "fragment">
  tile.cast<64x64> %f -> %s : memref<64x64xf32, "fragment"> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x64xf16>
  func.return
}
