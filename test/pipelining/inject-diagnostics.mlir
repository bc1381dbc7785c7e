// RUN: tile-opt %s --split-input-file --verify-diagnostics -p inject-software-pipeline

func.func @not_planned(%A: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{loop has no stage/order schedule; run pipeline-planning first}}
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
  }
  func.return
}

// -----

// The transformation validates before rewriting.

func.func @invalid_schedule(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [1, 0] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    // expected-error @+1 {{depends on 'tile.copy' (stage 1, order 0) in a later stage}}
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

func.func @multi_buffer_argument(%A: memref<256x64xf32>, %C: memref<256x64xf32>, %S: memref<64x64xf32, "shared">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1] order = [0, 1] {
    // expected-error @+1 {{writes %S, which needs 2 versions (written in stage 0, read in stage 1), but it is not a memref.alloc, so it cannot be multi-buffered}}
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}
