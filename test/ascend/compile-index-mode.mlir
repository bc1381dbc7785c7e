// tilepipe compile --index-mode: the index mode of guarded storage that names none.
// RUN: tilepipe compile %s --target ascend910b --syntax-check -o /dev/null 2>&1 | filecheck %s --check-prefix=ITERATION
// RUN: tilepipe compile %s --target ascend910b --index-mode counter --syntax-check -o %t.cpp 2>&1 | filecheck %s --check-prefix=COUNTER
// RUN: filecheck %s --check-prefix=CPP < %t.cpp

// ITERATION: versions: x_ub x2, y_ub x2
// COUNTER:   versions: x_ub x2, y_ub x2 (counter)
// CPP:       int64_t epochs;
// CPP:       int64_t epoch = epochs;
func.func @guarded(%x: memref<1024xf16>, %y: memref<1024xf16>, %p: i1) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<1024xf16> -> memref<256xf16, "ub">
    tile.copy<256> %x_ub -> %y[%off] : memref<256xf16, "ub"> -> memref<1024xf16>
    scf.if %p {
      tile.copy<256> %y[%off] -> %y_ub : memref<1024xf16> -> memref<256xf16, "ub">
      tile.copy<256> %y_ub -> %x[%off] : memref<256xf16, "ub"> -> memref<1024xf16>
    }
  }
  func.return
}
