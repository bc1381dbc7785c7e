// lower-to-nvvm converts the memory space of every value derived from a shared
// buffer, not only the buffer: casts, subviews and reinterpret_casts get address
// space 3 too, so that upstream MLIR accepts the module (-t ptx).

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s
// RUN: tile-opt %s --split-input-file -p lower-to-nvvm -t ptx | filecheck %s --check-prefix=PTX

// PTX: .visible .entry cast(
// PTX: .visible .entry subview(
// PTX: .visible .entry reinterpret(

// CHECK-LABEL: gpu.func @cast(
// CHECK:       %[[A:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<128xi8, 3 : i64> to memref<64xf16, 3 : i64>
// CHECK-NEXT:  "memref.cast"(%[[A]]) : (memref<64xf16, 3 : i64>) -> memref<?xf16, 3 : i64>
// CHECK:       gpu.return
func.func @cast(%G: memref<1024xf16>) attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<64xf16, "shared">
  %a_any = "memref.cast"(%a) : (memref<64xf16, "shared">) -> memref<?xf16, "shared">
  tile.copy<64> %G[%c0] -> %a : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %a_any[%c0] -> %G[%c0] : memref<?xf16, "shared"> -> memref<1024xf16>
  func.return
}

// -----

// CHECK-LABEL: gpu.func @subview(
// CHECK:       memref.subview %{{.*}}[0, 0] [16, 32] [1, 1] : memref<32x32xf16, 3 : i64> to memref<16x32xf16, strided<[32, 1]>, 3 : i64>
func.func @subview(%G: memref<32x32xf16>) attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<32x32xf16, "shared">
  %top = memref.subview %a[0, 0] [16, 32] [1, 1] : memref<32x32xf16, "shared"> to memref<16x32xf16, strided<[32, 1]>, "shared">
  tile.copy<32x32> %G -> %a : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.copy<16x32> %top -> %G[%c0, %c0] : memref<16x32xf16, strided<[32, 1]>, "shared"> -> memref<32x32xf16>
  func.return
}

// -----

// CHECK-LABEL: gpu.func @reinterpret(
// CHECK:       memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [8, 8], strides: [8, 1] : memref<64xf16, 3 : i64> to memref<8x8xf16, strided<[8, 1]>, 3 : i64>
func.func @reinterpret(%G: memref<8x8xf16>) attributes {tile.grid = array<i64: 1>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<64xf16, "shared">
  %m = memref.reinterpret_cast %a to offset: [0], sizes: [8, 8], strides: [8, 1] : memref<64xf16, "shared"> to memref<8x8xf16, strided<[8, 1]>, "shared">
  tile.copy<8x8> %G -> %m : memref<8x8xf16> -> memref<8x8xf16, strided<[8, 1]>, "shared">
  tile.copy<8x8> %m -> %G : memref<8x8xf16, strided<[8, 1]>, "shared"> -> memref<8x8xf16>
  func.return
}
