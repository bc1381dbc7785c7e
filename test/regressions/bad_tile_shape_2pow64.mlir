// lowering-2026-12/bad_tile_shape_2pow64.mlir: a tile shape of 2^64 was an internal
// error (ValueError while the op was built) in every driver.  The parser rejects a
// size that does not fit in the i64 shape property at the shape itself.
// RUN: %python %S/Inputs/exit_status.py 1 tile-opt %s 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tile-run %s --index-arg n=2 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tilepipe compile %s --target ascend 2>&1 | filecheck %s

// CHECK-NOT: internal error
// CHECK: bad_tile_shape_2pow64.mlir:[[# @LINE + 14]]:15: error: tile shape 18446744073709551616 has a size that does not fit in a 64-bit signed integer
// CHECK-NOT: exit_status.py
func.func @read_in_the_next_iteration(%x: memref<?xf32>, %z: memref<?xf32>, %n: index)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf32, "ub">
  %z_ub = memref.alloc() : memref<256xf32, "ub">
  tile.copy<256> %x[%c0] -> %x_ub {pipeline.stage = -3 : i64} : memref<?xf32> -> memref<256xf32, "ub">
  pipeline.for %i = %c0 to %n step %c1 num_stages = 1 {
    %off = arith.muli %i, %c256 : index
    %next = arith.addi %off, %c256 : index
    tile.exp<256> %x_ub -> %z_ub {pipeline.stage = -3 : i64} : memref<256xf32, "ub"> -> memref<256xf32, "ub">
    tile.copy<18446744073709551616> %z_ub -> %z[%off] : memref<256xf32, "ub"> -> memref<?xf32>
    tile.copy<256> %x[%next] -> %x_ub : memref<?xf32> -> memref<256xf32, "ub">
  }
  func.return
}
