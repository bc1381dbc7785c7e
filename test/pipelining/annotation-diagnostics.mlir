// RUN: tile-opt %s --split-input-file --verify-diagnostics -p pipeline-planning,pipeline-validate
// Bad annotations are rejected when the IR is verified, before any pass runs.

func.func @wrong_array_length(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{'stage' has 3 entries but the body has 2 side-effecting statements (pure scalar ops take no slot)}}
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1, 1] order = [0, 1, 2] {
    %row = arith.addi %k, %c1 : index
    tile.copy<64x64> %A[%row, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%row, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

func.func @negative_stage(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{stages must be non-negative, got [-1, 0]}}
  pipeline.for %k = %c0 to %c4 step %c1 stage = [-1, 0] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

func.func @nested_pipelines(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{nested pipelined loops are not supported; pipeline the inner loop or the outer one, not both}}
  pipeline.for %i = %c0 to %c4 step %c1 num_stages = 2 {
    pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
      tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    }
  }
  func.return
}

// -----

func.func @no_annotation(%A: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{pipelined loop needs num_stages or stage/order annotations}}
  pipeline.for %k = %c0 to %c4 step %c1 {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
  }
  func.return
}

// -----

func.func @planned_step_is_checked(%A: memref<256x64xf32>, %C: memref<256x64xf32>, %step: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{step must be a positive constant to pipeline the loop, got a value known only at run time}}
  pipeline.for %k = %c0 to %c4 step %step num_stages = 2 {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}
