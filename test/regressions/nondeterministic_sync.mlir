// RUN: env PYTHONHASHSEED=1 tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.1.mlir
// RUN: env PYTHONHASHSEED=2 tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.2.mlir
// RUN: env PYTHONHASHSEED=3 tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.3.mlir
// RUN: env PYTHONHASHSEED=4 tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.4.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: diff %t.1.mlir %t.3.mlir
// RUN: diff %t.1.mlir %t.4.mlir
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet --index-arg n=0,1

// Fuzz regression (fuzz-2026-12): barrier placement and a wait_group count depended on
// PYTHONHASHSEED.  The barrier cover handed z3 its clauses in the iteration order of a
// set of (block, index) points; they now list the points in program order.  (From
// n = 2 on the kernel reads memory it never wrote: only n <= 1 run.)

func.func @kern(%A: memref<320x16xf16>, %B: memref<160x64xf16>, %X: memref<320x64xf32>, %C: memref<64x64xf32>, %D: memref<64x64xf32>, %E: memref<640x64xf32>, %H: memref<64x64xf16>, %Vout: memref<64xf32>, %n: index)
    attributes {tile.grid = array<i64: 2>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %Sa1 = memref.alloc() : memref<32x16xf16, "shared">
  %Sb1 = memref.alloc() : memref<16x64xf16, "shared">
  %Sx = memref.alloc() : memref<32x64xf32, "shared">
  %Acc0 = memref.alloc() : memref<32x64xf32, "fragment">
  %T0 = memref.alloc() : memref<32x64xf32, "fragment">
  %V0 = memref.alloc() : memref<32xf32, "shared">
  pipeline.for %k0 = %c2 to %n step %c1 stage = [3, 0, 1] order = [0, 2, 1] {
    tile.broadcast<32x64> %V0 -> %T0 axis 1 : memref<32xf32, "shared"> -> memref<32x64xf32, "fragment">
    %row1 = arith.muli %k0, %c32 : index
    tile.copy<32x16> %A[%row1, %c0] -> %Sa1 : memref<320x16xf16> -> memref<32x16xf16, "shared">
    tile.gemm<32x64x16> %Sa1, %Sb1 -> %Acc0 : memref<32x16xf16, "shared">, memref<16x64xf16, "shared"> -> memref<32x64xf32, "fragment">
  }
  pipeline.for %k1 = %c1 to %n step %c1 stage = [0, 1, 2] order = [2, 1, 0] {
    %row2 = arith.muli %k1, %c32 : index
    tile.copy<32x64> %X[%row2, %c0] -> %Sx : memref<320x64xf32> -> memref<32x64xf32, "shared">
    tile.reduce<32x64> sum %Acc0 -> %V0 axis 1 : memref<32x64xf32, "fragment"> -> memref<32xf32, "shared">
    tile.copy<32x64> %Sx -> %T0 : memref<32x64xf32, "shared"> -> memref<32x64xf32, "fragment">
  }
  func.return
}
