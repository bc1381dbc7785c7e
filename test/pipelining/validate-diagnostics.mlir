// RUN: tile-opt %s --split-input-file --verify-diagnostics -p pipeline-validate

func.func @same_order(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{two statements have the same order (0): 'tile.copy' and 'tile.copy'}}
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1] order = [0, 0] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

func.func @consumer_in_earlier_stage(%A: memref<256x256xf16>, %B: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [1, 0, 0] order = [0, 1, 2] {
    tile.copy<64x64> %A[%c0, %k] -> %A_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k, %c0] -> %B_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    // expected-error @+1 {{'tile.gemm' (stage 0, order 2) depends on 'tile.copy' (stage 1, order 0) in a later stage (read-after-write on %A_s)}}
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  func.return
}

// -----

func.func @reordered_within_stage(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 0] order = [1, 0] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    // expected-error @+1 {{'tile.copy' (stage 0, order 0) depends on 'tile.copy' (stage 0, order 1) in the same stage but is ordered before it (read-after-write on %S)}}
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// Independent statements may be reordered freely: the copies touch disjoint rows.

func.func @independent_reorder_is_fine(%A: memref<256x64xf32>, %S: memref<128x64xf32, "shared">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 0] order = [1, 0] {
    tile.copy<64x64> %A[%k, %c0] -> %S[%c0, %c0] : memref<256x64xf32> -> memref<128x64xf32, "shared">
    tile.copy<64x64> %A[%k, %c0] -> %S[%c64, %c0] : memref<256x64xf32> -> memref<128x64xf32, "shared">
  }
  func.return
}

// -----

// Both statements overwrite the same output tile.  Stage 2 of iteration k runs after
// stage 0 of iteration k+1, so the final contents would come from the wrong write.

func.func @loop_carried_inversion(%A: memref<256x64xf32>, %B: memref<256x64xf32>, %O: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 2] order = [0, 1] {
    // expected-error @+1 {{'tile.copy' (stage 0, order 0) of iteration k+1 would run before 'tile.copy' (stage 2, order 1) of iteration k, which it depends on (write-after-write on %O, loop-carried)}}
    tile.copy<64x64> %A[%k, %c0] -> %O : memref<256x64xf32> -> memref<64x64xf32>
    tile.copy<64x64> %B[%k, %c0] -> %O : memref<256x64xf32> -> memref<64x64xf32>
  }
  func.return
}

// -----

func.func @value_crosses_stages(%ids: memref<4xindex>, %A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1, 1] order = [0, 1, 2] {
    %id = memref.load %ids[%k] : memref<4xindex>
    // expected-error @+1 {{'tile.copy' (stage 1, order 1) uses a value produced by 'memref.load' (stage 0, order 0); values cannot cross stages}}
    tile.copy<64x64> %A[%id, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

func.func @non_constant_step(%A: memref<256x64xf32>, %C: memref<256x64xf32>, %step: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  // expected-error @+1 {{step must be a positive constant to pipeline the loop, got a value known only at run time}}
  pipeline.for %k = %c0 to %c4 step %step stage = [0, 1] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

func.func @multi_buffer_used_after_loop(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  // expected-error @+1 {{uses %S, which needs 2 versions (written in stage 0, read in stage 1), outside the pipelined loop}}
  tile.copy<64x64> %S -> %C[%c0, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  func.return
}

// -----

func.func @multi_buffer_carries_values(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1] order = [0, 1] {
    tile.copy<32x64> %A[%k, %c0] -> %S[%c0, %c0] : memref<256x64xf32> -> memref<64x64xf32, "shared">
    // expected-error @+1 {{reads %S, which needs 2 versions (written in stage 0, read in stage 1), before the iteration fully wrote it}}
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}
