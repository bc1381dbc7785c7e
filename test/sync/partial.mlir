// RUN: tile-opt %s --split-input-file -p thread-sync | filecheck %s

// Tiles of 64 elements occupy threads 0..63 of 128: the barrier only needs those two
// warps (bar.sync 1, 64).  A tile of 96 elements rounds up to three warps and gets
// its own id.
// CHECK-LABEL: func.func @partial
// CHECK:       tile.copy<8x8> %A -> %s
// CHECK-NEXT:  pipeline.barrier id = 1, threads = 64
// CHECK-NEXT:  tile.copy<8x4> %s -> %B
// CHECK:       tile.copy<96> %C -> %t
// CHECK-NEXT:  pipeline.barrier id = 2, threads = 96
// CHECK-NEXT:  tile.copy<48> %t[%c48] -> %D
func.func @partial(%A: memref<8x8xf16>, %B: memref<8x4xf16>, %C: memref<96xf16>, %D: memref<48xf16>)
    attributes {tile.threads = 128 : i64} {
  %c48 = arith.constant 48 : index
  %s = memref.alloc() : memref<8x8xf16, "shared">
  %t = memref.alloc() : memref<96xf16, "shared">
  tile.copy<8x8> %A -> %s : memref<8x8xf16> -> memref<8x8xf16, "shared">
  tile.copy<8x4> %s -> %B : memref<8x8xf16, "shared"> -> memref<8x4xf16>
  tile.copy<96> %C -> %t : memref<96xf16> -> memref<96xf16, "shared">
  tile.copy<48> %t[%c48] -> %D : memref<96xf16, "shared"> -> memref<48xf16>
  func.return
}

// -----

// Involving all threads gives a full barrier.
// CHECK-LABEL: func.func @full
// CHECK:       pipeline.barrier{{$}}
func.func @full(%A: memref<16x16xf16>, %B: memref<16x8xf16>)
    attributes {tile.threads = 128 : i64} {
  %s = memref.alloc() : memref<16x16xf16, "shared">
  tile.copy<16x16> %A -> %s : memref<16x16xf16> -> memref<16x16xf16, "shared">
  tile.copy<16x8> %s -> %B : memref<16x16xf16, "shared"> -> memref<16x8xf16>
  func.return
}
