// RUN: tile-opt %s --split-input-file -p lower-to-ascend | filecheck %s
// RUN: tile-opt %s --split-input-file -p lower-to-ascend | tile-opt --split-input-file --print-op-generic | tile-opt --split-input-file | filecheck %s

// tile.div on UB becomes ascend.div.
// CHECK-LABEL: func.func @div
// CHECK:       ascend.div<8x64> %x, %y -> %z : memref<8x64xf32, "ub">, memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
// CHECK-NOT:   tile.
func.func @div() attributes {tile.target = "ascend910b"} {
  %x = memref.alloc() : memref<8x64xf32, "ub">
  %y = memref.alloc() : memref<8x64xf32, "ub">
  %z = memref.alloc() : memref<8x64xf32, "ub">
  tile.div<8x64> %x, %y -> %z : memref<8x64xf32, "ub">, memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
  func.return
}

// -----

// tile.cast on UB becomes ascend.cast (a pair Cast converts as tile.cast does).
// CHECK-LABEL: func.func @cast
// CHECK:       ascend.cast<8x64> %h -> %f : memref<8x64xf16, "ub"> -> memref<8x64xf32, "ub">
// CHECK-NEXT:  ascend.cast<8x64> %f -> %i : memref<8x64xf32, "ub"> -> memref<8x64xi32, "ub">
func.func @cast() attributes {tile.target = "ascend910b"} {
  %h = memref.alloc() : memref<8x64xf16, "ub">
  %f = memref.alloc() : memref<8x64xf32, "ub">
  %i = memref.alloc() : memref<8x64xi32, "ub">
  tile.cast<8x64> %h -> %f : memref<8x64xf16, "ub"> -> memref<8x64xf32, "ub">
  tile.cast<8x64> %f -> %i : memref<8x64xf32, "ub"> -> memref<8x64xi32, "ub">
  func.return
}

// -----

// A cast to the element's own type is a copy; a UB -> UB copy is a data_copy (V).
// CHECK-LABEL: func.func @local_copies
// CHECK:       ascend.data_copy<8x64> %a -> %b : memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
// CHECK-NEXT:  ascend.data_copy<8x64> %b -> %a : memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
func.func @local_copies() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<8x64xf32, "ub">
  %b = memref.alloc() : memref<8x64xf32, "ub">
  tile.cast<8x64> %a -> %b : memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
  tile.copy<8x64> %b -> %a : memref<8x64xf32, "ub"> -> memref<8x64xf32, "ub">
  func.return
}

// -----

// Row and column reductions and a row broadcast keep their kind and axis.
// CHECK-LABEL: func.func @reductions
// CHECK:       ascend.reduce<8x64> sum %x -> %r axis 1 : memref<8x64xf32, "ub"> -> memref<8xf32, "ub">
// CHECK-NEXT:  ascend.reduce<8x64> max %x -> %c axis 0 : memref<8x64xf32, "ub"> -> memref<64xf32, "ub">
// CHECK-NEXT:  ascend.broadcast<8x64> %r -> %x axis 1 : memref<8xf32, "ub"> -> memref<8x64xf32, "ub">
func.func @reductions() attributes {tile.target = "ascend910b"} {
  %x = memref.alloc() : memref<8x64xf32, "ub">
  %r = memref.alloc() : memref<8xf32, "ub">
  %c = memref.alloc() : memref<64xf32, "ub">
  tile.reduce<8x64> sum %x -> %r axis 1 : memref<8x64xf32, "ub"> -> memref<8xf32, "ub">
  tile.reduce<8x64> max %x -> %c axis 0 : memref<8x64xf32, "ub"> -> memref<64xf32, "ub">
  tile.broadcast<8x64> %r -> %x axis 1 : memref<8xf32, "ub"> -> memref<8x64xf32, "ub">
  func.return
}

// -----

// A cast out of L0C is the fixpipe's converting move.
// CHECK-LABEL: func.func @fixpipe_cast
// CHECK:       ascend.fixpipe<32x32> %c -> %C : memref<32x32xf32, "l0c"> -> memref<32x32xf16>
func.func @fixpipe_cast(%C: memref<32x32xf16>) attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<32x32xf32, "l0c">
  tile.cast<32x32> %c -> %C : memref<32x32xf32, "l0c"> -> memref<32x32xf16>
  func.return
}
