// RUN: tile-opt %s --split-input-file --verify-diagnostics -p thread-sync | filecheck %s

// A condition computed from memory may differ between threads: a barrier inside the
// branch could deadlock, and one before it does not separate the two copies.  The
// guard is split between them under the same condition, with a barrier between the
// halves that every thread reaches.
// CHECK-LABEL: func.func @non_uniform_branch
// CHECK:       scf.if %go {
// CHECK-NEXT:    tile.copy<64x64> %A -> %s
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.barrier
// CHECK-NEXT:  scf.if %go {
// CHECK-NEXT:    tile.copy<64x32> %s -> %B
// CHECK-NEXT:  }
func.func @non_uniform_branch(%A: memref<64x64xf16>, %B: memref<64x32xf16>,
                              %F: memref<1xi32>) attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %flag = memref.load %F[%c0] : memref<1xi32>
  %go = arith.cmpi ne, %flag, %zero : i32
  // expected-remark @+1 {{'scf.if' op split to place a barrier outside this non-uniform condition (one inside could deadlock) that separates RAW tile.copy (line 24) -> tile.copy (line 25) on %s}}
  scf.if %go {
    tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  }
  func.return
}

// -----

// The reader needs a value loaded inside the guard: the guard cannot be split, and
// the pass stops with an error instead of emitting a racy kernel.
func.func @non_uniform_unsplittable(%A: memref<64x64xf16>, %B: memref<64x32xf16>,
                                    %F: memref<1xi32>, %R: memref<1xindex>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %flag = memref.load %F[%c0] : memref<1xi32>
  %go = arith.cmpi ne, %flag, %zero : i32
  scf.if %go {
    tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
    %row = memref.load %R[%c0] : memref<1xindex>
    // expected-error @+1 {{'tile.copy' op needs a barrier that would have to be hoisted out of a non-uniform condition (a barrier there could deadlock) to separate RAW tile.copy (line 43) -> tile.copy (line 46) on %s}}
    tile.copy<64x32> %s[%row, %c0] -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  }
  func.return
}

// -----

// A condition on block ids and loop counters is uniform: the barrier goes inside.
// CHECK-LABEL: func.func @uniform_branch
// CHECK:       scf.if
// CHECK-NEXT:    tile.copy<64x64> %A -> %s
// CHECK-NEXT:    pipeline.barrier
func.func @uniform_branch(%A: memref<64x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %bx = tile.block_id x
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %first = arith.cmpi eq, %bx, %c0 : index
  scf.if %first {
    tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x32> %s -> %B : memref<64x64xf16, "shared"> -> memref<64x32xf16>
  }
  func.return
}
