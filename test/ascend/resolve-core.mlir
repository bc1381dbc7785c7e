// RUN: tile-opt %s --split-input-file -p ascend-resolve-core | filecheck %s
// RUN: tile-opt %s --split-input-file -p ascend-resolve-core --print-op-generic | filecheck %s --check-prefix=GENERIC

// The memories an op touches choose its pipe; MTE2 belongs to the core whose memory
// it fills.
// CHECK-LABEL: func.func @pipes
// CHECK: tile.copy<64> {{.*}} {ascend.pipe = #ascend<pipe MTE2>, ascend.core = "vector"}
// CHECK: tile.exp<64> {{.*}} {ascend.pipe = #ascend<pipe V>, ascend.core = "vector"}
// CHECK: tile.fill<64> {{.*}} {ascend.pipe = #ascend<pipe V>, ascend.core = "vector"}
// CHECK: tile.copy<64> {{.*}} {ascend.pipe = #ascend<pipe MTE3>, ascend.core = "vector"}
// CHECK: tile.copy<128x64> {{.*}} {ascend.pipe = #ascend<pipe MTE2>, ascend.core = "cube"}
// CHECK: tile.copy<128x64> {{.*}} {ascend.pipe = #ascend<pipe MTE1>, ascend.core = "cube"}
// CHECK: tile.fill<128x128> {{.*}} {ascend.pipe = #ascend<pipe M>, ascend.core = "cube"}
// CHECK: tile.gemm<128x128x64> {{.*}} {ascend.pipe = #ascend<pipe M>, ascend.core = "cube"}
// CHECK: tile.copy<128x128> {{.*}} {ascend.pipe = #ascend<pipe FIX>, ascend.core = "cube"}
// GENERIC: "tile.copy"{{.*}} {ascend.pipe = #ascend<pipe MTE2>, ascend.core = "vector"}
func.func @pipes(%x: memref<64xf16>, %A: memref<128x64xf16>, %C: memref<128x128xf32>) attributes {tile.target = "ascend910b"} {
  %h = arith.constant 0.0 : f16
  %f = arith.constant 0.0 : f32
  %u = memref.alloc() : memref<64xf16, "ub">
  %a1 = memref.alloc() : memref<128x64xf16, "l1">
  %a0 = memref.alloc() : memref<128x64xf16, "l0a">
  %b0 = memref.alloc() : memref<64x128xf16, "l0b">
  %c0 = memref.alloc() : memref<128x128xf32, "l0c">
  tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
  tile.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  tile.fill<64> %h -> %u : f16 -> memref<64xf16, "ub">
  tile.copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
  tile.copy<128x64> %A -> %a1 : memref<128x64xf16> -> memref<128x64xf16, "l1">
  tile.copy<128x64> %a1 -> %a0 : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
  tile.fill<128x128> %f -> %c0 : f32 -> memref<128x128xf32, "l0c">
  tile.gemm<128x128x64> %a0, %b0 -> %c0 : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  tile.copy<128x128> %c0 -> %C : memref<128x128xf32, "l0c"> -> memref<128x128xf32>
  func.return
}

// -----

// Kernels for other targets are left alone.
// CHECK-LABEL: func.func @cuda
// CHECK-NOT: ascend.pipe
func.func @cuda(%x: memref<64xf16>) attributes {tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64xf16, "shared">
  tile.copy<64> %x -> %s : memref<64xf16> -> memref<64xf16, "shared">
  func.return
}
