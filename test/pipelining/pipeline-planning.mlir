// RUN: tile-opt %s --split-input-file -p pipeline-planning | filecheck %s

// TileLang's plan for the chapter's GEMM body at num_stages = 3: copies at stage 0,
// the gemm at the last stage; num_stages is dropped and the depth recorded.

// CHECK-LABEL: func.func @copy_copy_gemm_3
// CHECK:       pipeline.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} depth = 3 {
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.gemm{{.*}} {pipeline.stage = 2 : i64, pipeline.order = 2 : i64}
// CHECK-NOT:   num_stages
func.func @copy_copy_gemm_3(%A: memref<256x256xf16>, %B: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 3 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  func.return
}

// -----

// At num_stages = 2 the gemm lands in stage 1.

// CHECK-LABEL: func.func @copy_copy_gemm_2
// CHECK:       depth = 2
// CHECK:         tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.gemm{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
func.func @copy_copy_gemm_2(%A: memref<256x256xf16>, %B: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  func.return
}

// -----

// At num_stages = 1 the rotation does not apply (it needs >= 2): the gemm is issued
// first, in stage 1, and the copies for the next iteration after it.

// CHECK-LABEL: func.func @copy_copy_gemm_1
// CHECK:       depth = 1
// CHECK:         tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    tile.gemm{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 0 : i64}
func.func @copy_copy_gemm_1(%A: memref<256x256xf16>, %B: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 1 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  func.return
}

// -----

// A copy into shared and its consumer copying out (TileLang's copy/consumer plan).

// CHECK-LABEL: func.func @copy_consumer_2
// CHECK:       depth = 2
// CHECK:         tile.copy{{.*}} -> %S {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} %S -> {{.*}} {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
func.func @copy_consumer_2(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%row, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// A scalar load feeding a copy's offset is planned with the copy (TileLang's
// producer_for_copy), right before it.

// CHECK-LABEL: func.func @producer_for_copy
// CHECK:         memref.load {{.*}} {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK:         tile.copy{{.*}} -> %S {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} %S -> {{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
func.func @producer_for_copy(%ids: memref<4xindex>, %A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %id = memref.load %ids[%k] : memref<4xindex>
    %row = arith.muli %id, %c64 : index
    %out = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%out, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// Explicit arrays become per-op attributes; without num_stages the depth is
// max(stage) + 1.

// CHECK-LABEL: func.func @explicit_arrays
// CHECK:       pipeline.for {{.*}} depth = 2 {
// CHECK-NOT:     stage = [
// CHECK:         tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 0 : i64}
func.func @explicit_arrays(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 stage = [0, 1] order = [1, 0] {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%row, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// With both, the arrays give stage/order and num_stages the depth (it may exceed
// max(stage) + 1: the depth sizes barrier rings, not the schedule).

// CHECK-LABEL: func.func @explicit_arrays_with_num_stages
// CHECK:       pipeline.for {{.*}} depth = 4 {
// CHECK:         tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
func.func @explicit_arrays_with_num_stages(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 4 stage = [0, 1] order = [0, 1] {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%row, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// num_stages = 0 means "do not pipeline": a plain scf.for, body unchanged.

// CHECK-LABEL: func.func @no_pipelining
// CHECK:       scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:    %[[ROW:.*]] = arith.muli %[[K]]
// CHECK-NEXT:    tile.copy<64x64> %{{.*}}[%[[ROW]], %{{.*}}] -> %{{.*}} :
// CHECK-NEXT:    tile.copy<64x64>
// CHECK-NEXT:  }
// CHECK-NOT:   pipeline
func.func @no_pipelining(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 0 {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%row, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// Canonical input (per-op attributes and a depth) is left as it is.

// CHECK-LABEL: func.func @already_canonical
// CHECK:       pipeline.for {{.*}} depth = 5 {
// CHECK:         tile.copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
func.func @already_canonical(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 depth = 5 {
    %row = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%row, %c0] -> %S {pipeline.stage = 0 : i64, pipeline.order = 0 : i64} : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%row, %c0] {pipeline.stage = 1 : i64, pipeline.order = 1 : i64} : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// TileLang's TMA plan: the bulk copy is the copy stage, the arrive and the wait go
// with the consumer.

// CHECK-LABEL: func.func @tma_copy_plan
// CHECK:       depth = 2
// CHECK:         pipeline.bulk_copy{{.*}} {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    pipeline.mbarrier_arrive_expect_tx{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    pipeline.mbarrier_wait_parity{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    tile.copy{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 3 : i64}
func.func @tma_copy_plan(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    pipeline.bulk_copy<64x64> %A[%k, %c0] -> %S, %bars[%c0] : memref<256x64xf32> -> memref<64x64xf32, "shared">, memref<1xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
    pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// A copy is hoisted to stage 0 only where its dependences allow it.  The copy into
// %D_s would overwrite what the cast before it reads in the same iteration (write-
// after-read), so it stays behind the cast, in the cast's stage; the copies feeding
// the gemm keep TileLang's plan.

// CHECK-LABEL: func.func @copy_after_reader
// CHECK:       depth = 3
// CHECK:         tile.cast{{.*}} {pipeline.stage = 3 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %A_s {pipeline.stage = 0 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %B_s {pipeline.stage = 0 : i64, pipeline.order = 3 : i64}
// CHECK-NEXT:    tile.gemm{{.*}} {pipeline.stage = 3 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %D_s {pipeline.stage = 3 : i64, pipeline.order = 4 : i64}
func.func @copy_after_reader(%A: memref<256x256xf16>, %B: memref<256x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %D_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %D_f = memref.alloc() : memref<64x64xf32, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 3 {
    %k0 = arith.muli %k, %c64 : index
    tile.cast<64x64> %D_s -> %D_f : memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
    tile.copy<64x64> %A[%c0, %k0] -> %A_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %B[%k0, %c0] -> %B_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
    tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
    tile.copy<64x64> %B[%c0, %k0] -> %D_s : memref<256x256xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

// A copy into a buffer that a later statement of the iteration overwrites is not
// hoisted either: with one version of %A_s (nothing reads it), the copy of iteration
// k+1 in stage 0 would run before the fill of iteration k in stage 1 (loop-carried
// write-after-write).  The copy into %B_s, read by the exp, is still hoisted, and the
// orders rotate so that it is issued first.

// CHECK-LABEL: func.func @copy_then_overwrite
// CHECK:       depth = 2
// CHECK:         tile.copy{{.*}} -> %A_s {pipeline.stage = 1 : i64, pipeline.order = 1 : i64}
// CHECK-NEXT:    tile.copy{{.*}} -> %B_s {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
// CHECK-NEXT:    tile.fill{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
// CHECK-NEXT:    tile.exp{{.*}} {pipeline.stage = 1 : i64, pipeline.order = 3 : i64}
func.func @copy_then_overwrite(%A: memref<256x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f16
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_f = memref.alloc() : memref<64x64xf16, "fragment">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    %k0 = arith.muli %k, %c64 : index
    tile.copy<64x64> %A[%k0, %c0] -> %A_s : memref<256x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %A[%k0, %c0] -> %B_s : memref<256x64xf16> -> memref<64x64xf16, "shared">
    tile.fill<64x64> %zero -> %A_s : f16 -> memref<64x64xf16, "shared">
    tile.exp<64x64> %B_s -> %B_f : memref<64x64xf16, "shared"> -> memref<64x64xf16, "fragment">
  }
  func.return
}
