// lower-to-nvvm rejects a tensor-map copy it cannot emit: on a target without tensor
// maps, into a shared tile the box cannot land in (unaligned, or not a whole slice).

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p lower-to-nvvm

func.func @not_on_sm90(%A: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{tensor-map copies need sm_90a; target sm_90 has none}}
  pipeline.bulk_copy<64x64> tensor_map %A -> %s, %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  func.return
}

// -----

func.func @unaligned(%A: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-error @+1 {{a tensor-map copy needs its shared tile 128-byte aligned; the tile lies at byte offset 16 (ask with arena.alignment or arena.swizzle)}}
  pipeline.bulk_copy<64x64> tensor_map %A -> %s, %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<2xi64, "shared">
  func.return
}

// -----

func.func @not_a_whole_slice(%A: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %s = memref.alloc() {arena.alignment = 128 : i64} : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{a tensor-map copy needs a box; here: its shared tile is not a whole slice of its buffer (a box lands contiguously)}}
  pipeline.bulk_copy<32x64> tensor_map %A -> %s[%c32, %c0], %bars[%c0] : memref<64x64xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  func.return
}
