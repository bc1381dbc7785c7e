// RUN: tile-run %s --func=vadd --check-races --quiet 2>&1 | filecheck %s --check-prefix=VADD --allow-empty
// RUN: not tile-run %s --func=reduce --check-races --quiet 2>&1 | filecheck %s --check-prefix=REDUCE
// tile-run --check-races on a tile-level Ascend kernel uses the Ascend model: the
// kernel has no threads and no syncs yet, so it is compiled with the Ascend pipeline
// and the pipe simulator checks the result (no CUDA "thread 0 / thread 1" races).

// VADD-NOT: race
// VADD-NOT: thread
func.func @vadd(%x: memref<1024xf16>, %y: memref<1024xf16>, %z: memref<1024xf16>)
    attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<1024xf16> -> memref<256xf16, "ub">
    tile.copy<256> %y[%off] -> %y_ub : memref<1024xf16> -> memref<256xf16, "ub">
    tile.add<256> %x_ub, %y_ub -> %x_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    tile.copy<256> %x_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<1024xf16>
  }
  func.return
}

// A kernel the Ascend pipeline cannot compile is said to be unsynchronized source.
// REDUCE: error: 'func.func' op is unsynchronized Ascend source: its races are decided after ascend-insert-sync, and the Ascend pipeline cannot compile it
// (an integer sum: the vector unit's block reductions take half and float).
func.func @reduce(%x: memref<16x16xi32>, %y: memref<16xi32>) attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<16x16xi32, "ub">
  %v = memref.alloc() : memref<16xi32, "ub">
  tile.copy<16x16> %x -> %u : memref<16x16xi32> -> memref<16x16xi32, "ub">
  tile.reduce<16x16> sum %u -> %v axis 1 : memref<16x16xi32, "ub"> -> memref<16xi32, "ub">
  tile.copy<16> %v -> %y : memref<16xi32, "ub"> -> memref<16xi32>
  func.return
}
