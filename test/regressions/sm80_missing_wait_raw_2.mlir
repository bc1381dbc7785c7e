// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,6

// Fuzz regression (fuzz-2026-12): the prologue guard of the first loop held the copy
// into %Sx, the copy reading %Sx (same threads: a wait, no barrier) and the next copy;
// the commit came after the guard and the wait was silently dropped (race RAW on %Sx).
// The guard is split after the copy; the reader gets its wait_group.

// CHECK-LABEL: func.func @kern
// CHECK:       scf.if %[[G:.*]] {
// CHECK:         pipeline.async_copy<32x16> %X{{.*}} -> %Sx
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NEXT:  scf.if %[[G]] {
// CHECK-NEXT:    tile.cast<32x16> %Acc1 -> %Sp
// CHECK:         pipeline.wait_group 0
// CHECK-NEXT:    tile.copy<32x16> %Sx -> %E
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    pipeline.async_copy<32x16> %A{{.*}} -> %Sa0
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
func.func @kern(%A: memref<320x16xf16>, %B: memref<160x16xf16>, %X: memref<320x16xf32>, %C: memref<32x16xf32>, %D: memref<32x16xf32>, %E: memref<320x48xf32>, %H: memref<32x16xf16>, %Vout: memref<32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c320 = arith.constant 320 : index
  %f0 = arith.constant 0.000000e+00 : f32
  %f1 = arith.constant 1.000000e+00 : f32
  %f2 = arith.constant 5.000000e-01 : f32
  %bx = tile.block_id x
  %ob = arith.muli %bx, %c32 : index
  %oe = arith.muli %bx, %c320 : index
  %Sa0 = memref.alloc() : memref<32x16xf16, "shared">
  %Sa1 = memref.alloc() : memref<32x16xf16, "shared">
  %Sb0 = memref.alloc() : memref<16x16xf16, "shared">
  %Sb1 = memref.alloc() : memref<16x16xf16, "shared">
  %Sbt = memref.alloc() : memref<16x16xf16, "shared">
  %Sx = memref.alloc() : memref<32x16xf32, "shared">
  %Sp = memref.alloc() : memref<32x16xf16, "shared">
  %Acc0 = memref.alloc() : memref<32x16xf32, "fragment">
  %Acc1 = memref.alloc() : memref<32x16xf32, "fragment">
  %T0 = memref.alloc() : memref<32x16xf32, "fragment">
  %T1 = memref.alloc() : memref<32x16xf32, "fragment">
  %V0 = memref.alloc() : memref<32xf32, "shared">
  %V1 = memref.alloc() : memref<32xf32, "shared">
  tile.fill<32x16> %f0 -> %Acc0 : f32 -> memref<32x16xf32, "fragment">
  tile.fill<32x16> %f1 -> %Acc1 : f32 -> memref<32x16xf32, "fragment">
  tile.fill<32> %f0 -> %V0 : f32 -> memref<32xf32, "shared">
  tile.fill<32> %f2 -> %V1 : f32 -> memref<32xf32, "shared">
  pipeline.for %k0 = %c0 to %n step %c2 stage = [0, 0, 0, 0, 1, 1] order = [0, 1, 2, 3, 4, 5] {
    %row1 = arith.muli %k0, %c32 : index
    tile.copy<32x16> %X[%row1, %c0] -> %Sx : memref<320x16xf32> -> memref<32x16xf32, "shared">
    tile.cast<32x16> %Acc1 -> %Sp : memref<32x16xf32, "fragment"> -> memref<32x16xf16, "shared">
    %row2 = arith.muli %k0, %c32 : index
    %re3 = arith.addi %row2, %oe : index
    tile.copy<32x16> %Sx -> %E[%re3, %c0] : memref<32x16xf32, "shared"> -> memref<320x48xf32>
    %row4 = arith.muli %k0, %c32 : index
    tile.copy<32x16> %A[%row4, %c0] -> %Sa0 : memref<320x16xf16> -> memref<32x16xf16, "shared">
    %row5 = arith.muli %k0, %c16 : index
    %rt6 = arith.muli %k0, %c0 : index
    tile.copy<16x16> %A[%rt6, %c0] -> %Sbt : memref<320x16xf16> -> memref<16x16xf16, "shared">
    %row7 = arith.muli %k0, %c32 : index
    %re8 = arith.addi %row7, %oe : index
    tile.copy<32x16> %Acc0 -> %E[%re8, %c16] : memref<32x16xf32, "fragment"> -> memref<320x48xf32>
  }
  pipeline.for %k1 = %c0 to %n step %c3 stage = [0, 0, 1, 2] order = [2, 3, 0, 1] {
    %row9 = arith.muli %k1, %c16 : index
    tile.copy<16x16> %B[%row9, %c0] -> %Sb0 : memref<160x16xf16> -> memref<16x16xf16, "shared">
    %row10 = arith.muli %k1, %c32 : index
    tile.copy<32x16> %X[%row10, %c0] -> %Sx : memref<320x16xf32> -> memref<32x16xf32, "shared">
    tile.cast<32x16> %Acc0 -> %Sp : memref<32x16xf32, "fragment"> -> memref<32x16xf16, "shared">
    %row11 = arith.muli %k1, %c32 : index
    %re12 = arith.addi %row11, %oe : index
    tile.copy<32x16> %Acc1 -> %E[%re12, %c32] : memref<32x16xf32, "fragment"> -> memref<320x48xf32>
  }
  tile.copy<32x16> %Acc0 -> %C[%ob, %c0] : memref<32x16xf32, "fragment"> -> memref<32x16xf32>
  tile.copy<32x16> %Acc1 -> %D[%ob, %c0] : memref<32x16xf32, "fragment"> -> memref<32x16xf32>
  tile.copy<32> %V0 -> %Vout[%ob] : memref<32xf32, "shared"> -> memref<32xf32>
  func.return
}
