// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" | filecheck %s
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1,2,3,5,7

// Fuzz regression (fuzz-2026-12): stage = [0, 0, 0, 2] puts the gemm in the stage of
// the cp.async that fills %Sa1.  The pipeline emitted the slot as one guard, the copy
// and the gemm inside, with the commit after the guard: no wait_group could land the
// copy before the gemm (race RAW, %D all NaN at n = 1).  async-copy now splits the
// guard after its copies so the group is committed, and waited for, before the gemm.
// (Before the gemm's guard or first in it: the two placements cost the same, and the
// barrier cover's choice between them is z3's.)

// CHECK-LABEL: func.func @kern
// CHECK:       scf.if %[[G:.*]] {
// CHECK:         pipeline.async_copy<32x16> %B
// CHECK:         pipeline.async_copy<32x32> %A
// CHECK-NEXT:  }
// CHECK-NEXT:  pipeline.commit_group
// CHECK-NOT:   tile.gemm
// CHECK:       pipeline.wait_group 0
// CHECK-NEXT:  pipeline.barrier
// CHECK-NOT:   pipeline.async_copy
// CHECK:       tile.gemm<32x16x32> %Sa1, %Sb1 -> %Acc1
func.func @kern(%A: memref<320x32xf16>, %B: memref<320x16xf16>, %X: memref<320x16xf32>, %C: memref<32x16xf32>, %D: memref<32x16xf32>, %E: memref<320x16xf32>, %H: memref<32x16xf16>, %Vout: memref<32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c320 = arith.constant 320 : index
  %f0 = arith.constant 0.000000e+00 : f32
  %f1 = arith.constant 1.000000e+00 : f32
  %f2 = arith.constant 5.000000e-01 : f32
  %bx = tile.block_id x
  %ob = arith.muli %bx, %c32 : index
  %oe = arith.muli %bx, %c320 : index
  %Sa0 = memref.alloc() : memref<32x32xf16, "shared">
  %Sa1 = memref.alloc() : memref<32x32xf16, "shared">
  %Sb0 = memref.alloc() : memref<32x16xf16, "shared">
  %Sb1 = memref.alloc() : memref<32x16xf16, "shared">
  %Sbt = memref.alloc() : memref<16x32xf16, "shared">
  %Sx = memref.alloc() : memref<32x16xf32, "shared">
  %Sp = memref.alloc() : memref<32x16xf16, "shared">
  %Acc0 = memref.alloc() : memref<32x16xf32, "fragment">
  %Acc1 = memref.alloc() : memref<32x16xf32, "fragment">
  %T0 = memref.alloc() : memref<32x16xf32, "fragment">
  %T1 = memref.alloc() : memref<32x16xf32, "fragment">
  %V0 = memref.alloc() : memref<32xf32, "shared">
  %V1 = memref.alloc() : memref<32xf32, "shared">
  %Sh = memref.alloc() : memref<32x16xf16, "shared">
  tile.fill<32x16> %f0 -> %Acc0 : f32 -> memref<32x16xf32, "fragment">
  tile.fill<32x16> %f2 -> %Acc1 : f32 -> memref<32x16xf32, "fragment">
  tile.fill<32> %f0 -> %V0 : f32 -> memref<32xf32, "shared">
  tile.fill<32> %f2 -> %V1 : f32 -> memref<32xf32, "shared">
  tile.copy<32x16> %B -> %Sb1 : memref<320x16xf16> -> memref<32x16xf16, "shared">
  pipeline.for %k0 = %c0 to %n step %c1 num_stages = 4 {
    tile.reduce<32x16> sum %Acc0 -> %V0 axis 1 : memref<32x16xf32, "fragment"> -> memref<32xf32, "shared">
    %row1 = arith.muli %k0, %c32 : index
    %re2 = arith.addi %row1, %oe : index
    tile.copy<32x16> %Acc0 -> %E[%re2, %c0] : memref<32x16xf32, "fragment"> -> memref<320x16xf32>
    tile.broadcast<32x16> %V0 -> %T1 axis 1 : memref<32xf32, "shared"> -> memref<32x16xf32, "fragment">
    tile.reduce<32x16> max %Acc0 -> %V1 axis 1 : memref<32x16xf32, "fragment"> -> memref<32xf32, "shared">
    tile.max<32> %V0, %V1 -> %V1 : memref<32xf32, "shared">, memref<32xf32, "shared"> -> memref<32xf32, "shared">
    tile.reduce<32x16> sum %T1 -> %V0 axis 1 : memref<32x16xf32, "fragment"> -> memref<32xf32, "shared">
  }
  pipeline.for %k1 = %c0 to %n step %c3 stage = [0, 0, 0, 2] order = [0, 1, 2, 3] {
    %row3 = arith.muli %k1, %c32 : index
    tile.copy<32x16> %B[%row3, %c0] -> %Sb0 : memref<320x16xf16> -> memref<32x16xf16, "shared">
    %row4 = arith.muli %k1, %c32 : index
    tile.copy<32x32> %A[%row4, %c0] -> %Sa1 : memref<320x32xf16> -> memref<32x32xf16, "shared">
    tile.gemm<32x16x32> %Sa1, %Sb1 -> %Acc1 : memref<32x32xf16, "shared">, memref<32x16xf16, "shared"> -> memref<32x16xf32, "fragment">
    tile.mul<32> %V1, %V1 -> %V0 : memref<32xf32, "shared">, memref<32xf32, "shared"> -> memref<32xf32, "shared">
  }
  tile.copy<32x16> %Acc0 -> %C[%ob, %c0] : memref<32x16xf32, "fragment"> -> memref<32x16xf32>
  tile.copy<32x16> %Acc1 -> %D[%ob, %c0] : memref<32x16xf32, "fragment"> -> memref<32x16xf32>
  tile.copy<32> %V0 -> %Vout[%ob] : memref<32xf32, "shared"> -> memref<32xf32>
  tile.cast<32x16> %Acc0 -> %Sh : memref<32x16xf32, "fragment"> -> memref<32x16xf16, "shared">
  tile.copy<32x16> %Sh -> %H[%ob, %c0] : memref<32x16xf16, "shared"> -> memref<32x16xf16>
  func.return
}
