// RUN: tile-opt %s --split-input-file -p thread-sync | filecheck %s

// Loop-carried hazards: iteration k against iteration k + d.

// One buffer written and then read by every iteration: the RAW in the iteration and
// the WAR against the next iteration's write need two barriers.
// CHECK-LABEL: func.func @single_buffer
// CHECK:       scf.for
// CHECK-NEXT:    tile.copy<64x64> %A[%i, %c0] -> %s
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    tile.copy<64x32> %s -> %B[%i, %c0]
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:  }
func.func @single_buffer(%A: memref<256x64xf16>, %B: memref<256x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  scf.for %i = %c0 to %c256 step %c64 {
    tile.copy<64x64> %A[%i, %c0] -> %s : memref<256x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x32> %s -> %B[%i, %c0] : memref<64x64xf16, "shared"> -> memref<256x32xf16>
  }
  func.return
}

// -----

// Each iteration touches its own rows (A[k] vs A[k+1] are disjoint): nothing carried,
// and within the iteration the same threads read what they wrote.
// CHECK-LABEL: func.func @disjoint_iterations
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @disjoint_iterations(%A: memref<256x64xf16>, %B: memref<256x64xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<256x64xf16, "shared">
  scf.for %k = %c0 to %c4 step %c1 {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %s[%row, %c0] : memref<256x64xf16> -> memref<256x64xf16, "shared">
    tile.copy<64x64> %s[%row, %c0] -> %B[%row, %c0] : memref<256x64xf16, "shared"> -> memref<256x64xf16>
  }
  func.return
}

// -----

// Reading the previous iteration's rows (A[k-1]) is a loop-carried RAW at distance 1;
// one barrier right before the read separates it from the previous iteration's write
// and, in the first iteration, from the copy before the loop.
// CHECK-LABEL: func.func @carried_raw
// CHECK:       tile.copy<64x64> %A -> %s
// CHECK-NEXT:  scf.for
// CHECK-NEXT:    %row = arith.muli
// CHECK-NEXT:    %prev = arith.subi
// CHECK-NEXT:    tile.copy<64x64> %A[%row, %c0] -> %s[%row, %c0]
// CHECK-NEXT:    pipeline.barrier
// CHECK-NEXT:    tile.copy<64x32> %s[%prev, %c0] -> %B
// CHECK-NEXT:  }
func.func @carried_raw(%A: memref<320x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<320x64xf16, "shared">
  tile.copy<64x64> %A -> %s : memref<320x64xf16> -> memref<320x64xf16, "shared">
  scf.for %k = %c1 to %c5 step %c1 {
    %row = arith.muli %k, %c64 : index
    %prev = arith.subi %row, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %s[%row, %c0] : memref<320x64xf16> -> memref<320x64xf16, "shared">
    tile.copy<64x32> %s[%prev, %c0] -> %B : memref<320x64xf16, "shared"> -> memref<64x32xf16>
  }
  func.return
}

// -----

// A guard on the iteration (uniform across threads) is a constraint: the copy in the
// branch only runs for k = 0, so it never meets the read of row 64 in a later iteration.
// CHECK-LABEL: func.func @guarded
// CHECK-NOT:   pipeline.barrier
// CHECK:       func.return
func.func @guarded(%A: memref<128x64xf16>, %B: memref<64x32xf16>)
    attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<128x64xf16, "shared">
  scf.for %k = %c0 to %c4 step %c1 {
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      tile.copy<64x64> %A -> %s : memref<128x64xf16> -> memref<128x64xf16, "shared">
    }
    tile.copy<64x32> %s[%c64, %c0] -> %B : memref<128x64xf16, "shared"> -> memref<64x32xf16>
  }
  func.return
}
