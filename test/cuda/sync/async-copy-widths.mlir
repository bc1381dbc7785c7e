// RUN: tile-opt %s --split-input-file -p async-copy | filecheck %s

// async-copy turns a global -> shared copy into cp.async only where an aligned chunk
// of at least 4 bytes is provable on both sides; otherwise the copy stays
// synchronous (the lowering copies it element by element), never an error.

// Static rows of 32 f16 at a multiple of 32: 16-byte chunks.
// CHECK-LABEL: func.func @static_rows
// CHECK:         pipeline.async_copy<64x32> %A[%r, %k] -> %s
func.func @static_rows(%A: memref<128x64xf16>, %i: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %i, %c64 : index
  %k = arith.muli %i, %c32 : index
  %s = memref.alloc() : memref<64x32xf16, "shared">
  tile.copy<64x32> %A[%r, %k] -> %s : memref<128x64xf16> -> memref<64x32xf16, "shared">
  func.return
}

// -----

// A dynamic row length proves no alignment of the rows after the first.
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         tile.copy<64x32> %A[%r, %k] -> %s
// CHECK-NOT:     pipeline.async_copy
func.func @dynamic_rows(%A: memref<?x?xf16>, %i: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %i, %c64 : index
  %k = arith.muli %i, %c32 : index
  %s = memref.alloc() : memref<64x32xf16, "shared">
  tile.copy<64x32> %A[%r, %k] -> %s : memref<?x?xf16> -> memref<64x32xf16, "shared">
  func.return
}

// -----

// Only the row count dynamic: the rows stay 16-byte aligned.
// CHECK-LABEL: func.func @dynamic_row_count
// CHECK:         pipeline.async_copy<64x32> %A[%r, %k] -> %s
func.func @dynamic_row_count(%A: memref<?x1000xf16>, %i: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = arith.muli %i, %c64 : index
  %k = arith.muli %i, %c32 : index
  %s = memref.alloc() : memref<64x32xf16, "shared">
  tile.copy<64x32> %A[%r, %k] -> %s : memref<?x1000xf16> -> memref<64x32xf16, "shared">
  func.return
}

// -----

// Rows of 70 f16 are only 4-byte aligned: the widest provable chunk is 4 bytes.
// An odd column offset proves nothing: synchronous.
// CHECK-LABEL: func.func @narrow_rows
// CHECK:         pipeline.async_copy<32x64> %B[%k, %c0] -> %s
// CHECK:         tile.copy<32x64> %B[%k, %c1] -> %s
func.func @narrow_rows(%B: memref<72x70xf16>, %i: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k = arith.muli %i, %c32 : index
  %s = memref.alloc() : memref<32x64xf16, "shared">
  tile.copy<32x64> %B[%k, %c0] -> %s : memref<72x70xf16> -> memref<32x64xf16, "shared">
  tile.copy<32x64> %B[%k, %c1] -> %s : memref<72x70xf16> -> memref<32x64xf16, "shared">
  func.return
}
