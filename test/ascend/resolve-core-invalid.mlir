// RUN: tile-opt %s --split-input-file --verify-diagnostics -p ascend-resolve-core

func.func @gm_to_l0a(%A: memref<128x64xf16>) attributes {tile.target = "ascend910b"} {
  %a0 = memref.alloc() : memref<128x64xf16, "l0a">
  // expected-error @+1 {{no Ascend pipe moves gm -> l0a}}
  tile.copy<128x64> %A -> %a0 : memref<128x64xf16> -> memref<128x64xf16, "l0a">
  func.return
}

// -----

// (A CUDA memory space such as "shared" is rejected earlier, by the kernel verifier.)
func.func @gemm_a_from_l0b() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<128x64xf16, "l0b">
  %b = memref.alloc() : memref<64x128xf16, "l0b">
  %c = memref.alloc() : memref<128x128xf32, "l0c">
  // expected-error @+1 {{the cube needs A in l0a, B in l0b and C in l0c, got l0b, l0b, l0c}}
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "l0b">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  func.return
}

// -----

func.func @vector_on_l1() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xf16, "l1">
  // expected-error @+1 {{the vector unit computes on ub only, got l1, l1}}
  tile.exp<64> %a -> %a : memref<64xf16, "l1"> -> memref<64xf16, "l1">
  func.return
}
