// RUN: tile-opt %s --split-input-file -p ascend-zero-boundary-tiles | filecheck %s
// RUN: tile-opt %s --split-input-file -p ascend-zero-boundary-tiles,ascend-zero-boundary-tiles | filecheck %s

// A GM -> UB copy that may reach past its array is followed by an ascend.zero_tail
// of its tile, right before the tile's reader: DataCopyPad pads a row only to its
// 32-byte block, and the rest of the tile would keep an earlier tile's data.  The
// zeroing is unconditional: one guarded by "this tile is ragged" left
// ascend-insert-sync a flag ring it could not close (fuzz seeds 300032, 300113,
// 300191).  Running the pass twice changes nothing.
// CHECK-LABEL: func.func @ragged_rows
// CHECK:         %[[OFF:.*]] = arith.muli %i, %c16 : index
// CHECK-NEXT:    tile.copy<16x64> %x[%[[OFF]], %c0] -> %x_ub
// CHECK-NEXT:    ascend.zero_tail<16x64> %x[%[[OFF]], %c0] -> %x_ub : memref<?x64xf32> -> memref<16x64xf32, "ub">
// CHECK-NEXT:    tile.exp<16x64>
// CHECK-NOT:     ascend.zero_tail
// CHECK-NOT:     scf.if
func.func @ragged_rows(%x: memref<?x64xf32>, %z: memref<?x64xf32>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %x_ub = memref.alloc() : memref<16x64xf32, "ub">
  %z_ub = memref.alloc() : memref<16x64xf32, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %off = arith.muli %i, %c16 : index
    tile.copy<16x64> %x[%off, %c0] -> %x_ub : memref<?x64xf32> -> memref<16x64xf32, "ub">
    tile.exp<16x64> %x_ub -> %z_ub : memref<16x64xf32, "ub"> -> memref<16x64xf32, "ub">
    tile.copy<16x64> %z_ub -> %z[%off, %c0] : memref<16x64xf32, "ub"> -> memref<?x64xf32>
  }
  func.return
}

// -----

// Two ragged inputs of one reader: the later copy's tail is zeroed first, so the
// vector pipe starts on the tile whose copy lands last and one MTE2 -> V wait covers
// both copies (the flags of the static kernel).
// CHECK-LABEL: func.func @two_inputs_one_reader
// CHECK:         tile.copy<256> %x[%off] -> %x_ub
// CHECK-NEXT:    tile.copy<256> %y[%off] -> %y_ub
// CHECK-NEXT:    ascend.zero_tail<256> %y[%off] -> %y_ub
// CHECK-NEXT:    ascend.zero_tail<256> %x[%off] -> %x_ub
// CHECK-NEXT:    tile.add<256> %x_ub, %y_ub -> %z_ub
// CHECK-NOT:     ascend.zero_tail
func.func @two_inputs_one_reader(%x: memref<?xf16>, %y: memref<?xf16>, %z: memref<?xf16>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<?xf16> -> memref<256xf16, "ub">
    tile.copy<256> %y[%off] -> %y_ub : memref<?xf16> -> memref<256xf16, "ub">
    tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<?xf16>
  }
  func.return
}

// -----

// A static array the tile does not divide: its tiles may be ragged.  The tile only
// passes through UB to a store, which is its reader.
// CHECK-LABEL: func.func @static_tail
// CHECK:         tile.copy<256> %x[%{{.*}}] -> %x_ub
// CHECK-NEXT:    ascend.zero_tail<256> %x[%{{.*}}] -> %x_ub : memref<1000xi32> -> memref<256xi32, "ub">
// CHECK-NEXT:    tile.copy<256> %x_ub -> %z
func.func @static_tail(%x: memref<1000xi32>, %z: memref<1000xi32>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xi32, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<1000xi32> -> memref<256xi32, "ub">
    tile.copy<256> %x_ub -> %z[%off] : memref<256xi32, "ub"> -> memref<1000xi32>
  }
  func.return
}

// -----

// Another write into the tile before any read: the tail is zeroed before it, so the
// zeroing cannot clobber what that write puts there.
// CHECK-LABEL: func.func @second_write_before_the_reader
// CHECK:         tile.copy<16x64> %x[%off, %c0] -> %t_ub
// CHECK-NEXT:    ascend.zero_tail<16x64> %x[%off, %c0] -> %t_ub
// CHECK-NEXT:    tile.copy<16x64> %y[%off, %c0] -> %t_ub
// CHECK-NEXT:    ascend.zero_tail<16x64> %y[%off, %c0] -> %t_ub
// CHECK-NEXT:    tile.exp<16x64> %t_ub
func.func @second_write_before_the_reader(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %z: memref<?x64xf32>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %t_ub = memref.alloc() : memref<16x64xf32, "ub">
  %z_ub = memref.alloc() : memref<16x64xf32, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    %off = arith.muli %i, %c16 : index
    tile.copy<16x64> %x[%off, %c0] -> %t_ub : memref<?x64xf32> -> memref<16x64xf32, "ub">
    tile.copy<16x64> %y[%off, %c0] -> %t_ub : memref<?x64xf32> -> memref<16x64xf32, "ub">
    tile.exp<16x64> %t_ub -> %z_ub : memref<16x64xf32, "ub"> -> memref<16x64xf32, "ub">
    tile.copy<16x64> %z_ub -> %z[%off, %c0] : memref<16x64xf32, "ub"> -> memref<?x64xf32>
  }
  func.return
}

// -----

// Read in the next iteration (the reader comes before the copy in the body): the tail
// is zeroed at the end of the body.  The first tile's reader is the loop.
// CHECK-LABEL: func.func @read_in_the_next_iteration
// CHECK:         tile.copy<256> %x[%c0] -> %x_ub
// CHECK-NEXT:    ascend.zero_tail<256> %x[%c0] -> %x_ub
// CHECK-NEXT:    pipeline.for
// CHECK:         tile.exp<256> %x_ub -> %z_ub
// CHECK:         tile.copy<256> %x[%next] -> %x_ub
// CHECK-NEXT:    ascend.zero_tail<256> %x[%next] -> %x_ub
// CHECK-NEXT:    }
func.func @read_in_the_next_iteration(%x: memref<?xf32>, %z: memref<?xf32>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf32, "ub">
  %z_ub = memref.alloc() : memref<256xf32, "ub">
  tile.copy<256> %x[%c0] -> %x_ub : memref<?xf32> -> memref<256xf32, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 1 {
    %off = arith.muli %i, %c256 : index
    %next = arith.addi %off, %c256 : index
    tile.exp<256> %x_ub -> %z_ub : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf32, "ub"> -> memref<?xf32>
    tile.copy<256> %x[%next] -> %x_ub : memref<?xf32> -> memref<256xf32, "ub">
  }
  func.return
}

// -----

// Whole tiles of a static array (the fast path), GM -> L1 (zeroed by its own
// InitConstValue), stores, and a ragged tile nothing reads are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     ascend.zero_tail
// CHECK-NOT:     scf.if
func.func @untouched(%x: memref<4096xf16>, %a: memref<?x?xf16>, %y: memref<?xf16>, %z: memref<?xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %a_l1 = memref.alloc() : memref<16x16xf16, "l1">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    tile.copy<256> %x_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<?xf16>
    tile.copy<16x16> %a[%c0, %c0] -> %a_l1 : memref<?x?xf16> -> memref<16x16xf16, "l1">
    tile.copy<256> %y[%off] -> %y_ub : memref<?xf16> -> memref<256xf16, "ub">
  }
  func.return
}

// -----

// At the kernel's top level too (fuzz seed 20261205 was rejected when a zeroing sat in
// a branch there: "'tile.fill' op must be at the kernel's top level or in a pipelined
// loop").
// CHECK-LABEL: func.func @top_level
// CHECK:         tile.copy<16x64> %x[%c0, %c0] -> %x_ub
// CHECK-NEXT:    ascend.zero_tail<16x64> %x[%c0, %c0] -> %x_ub : memref<10x64xf32> -> memref<16x64xf32, "ub">
// CHECK-NEXT:    tile.exp<16x64>
// CHECK-NOT:     scf.if
// CHECK-NOT:     ascend.zero_tail
func.func @top_level(%x: memref<10x64xf32>, %z: memref<10x64xf32>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %x_ub = memref.alloc() : memref<16x64xf32, "ub">
  %z_ub = memref.alloc() : memref<16x64xf32, "ub">
  tile.copy<16x64> %x[%c0, %c0] -> %x_ub : memref<10x64xf32> -> memref<16x64xf32, "ub">
  tile.exp<16x64> %x_ub -> %z_ub : memref<16x64xf32, "ub"> -> memref<16x64xf32, "ub">
  tile.copy<16x64> %z_ub -> %z[%c0, %c0] : memref<16x64xf32, "ub"> -> memref<10x64xf32>
  func.return
}
