// A single-buffered loop that prefetches the next row block at the end of each
// iteration.  Without the barrier at the top of the body, iteration k+1's gemm reads
// what iteration k's copy wrote, unordered (a loop-carried RAW); with it the loop is
// race free and equal to the sequential loop.
// RUN: not tile-run %s -f racy --index-arg n=3 --check-races --quiet 2>&1 | filecheck %s
// RUN: tile-run %s -f kernel --index-arg n=3 --check-races --compare-with %S/Inputs/sequential.mlir --quiet

func.func @racy(%A: memref<1088x32xf16>, %B: memref<32x32xf16>, %C: memref<64x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.copy<32x32> %B -> %B_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  tile.copy<64x32> %A[%c0, %c0] -> %A_s : memref<1088x32xf16> -> memref<64x32xf16, "shared">
  pipeline.barrier
  scf.for %k = %c0 to %n step %c1 {
    tile.gemm<64x32x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<64x32xf32, "fragment">
    pipeline.barrier
    %next = arith.addi %k, %c1 : index
    %has_next = arith.cmpi slt, %next, %n : index
    scf.if %has_next {
      %row = arith.muli %next, %c64 : index
      tile.copy<64x32> %A[%row, %c0] -> %A_s : memref<1088x32xf16> -> memref<64x32xf16, "shared">
    }
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}

func.func @kernel(%A: memref<1088x32xf16>, %B: memref<32x32xf16>, %C: memref<64x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.copy<32x32> %B -> %B_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  tile.copy<64x32> %A[%c0, %c0] -> %A_s : memref<1088x32xf16> -> memref<64x32xf16, "shared">
  scf.for %k = %c0 to %n step %c1 {
    pipeline.barrier
    tile.gemm<64x32x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<64x32xf32, "fragment">
    pipeline.barrier
    %next = arith.addi %k, %c1 : index
    %has_next = arith.cmpi slt, %next, %n : index
    scf.if %has_next {
      %row = arith.muli %next, %c64 : index
      tile.copy<64x32> %A[%row, %c0] -> %A_s : memref<1088x32xf16> -> memref<64x32xf16, "shared">
    }
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}

// CHECK:      race (RAW) on %A_s[0, 0] in block (0):
// CHECK-NEXT:   first:  write by thread 0 in 'tile.copy' at {{.*}}loop-carried.mlir:28:7 (k = 0)
// CHECK-NEXT:   second: read by thread 1 in 'tile.gemm' at {{.*}}loop-carried.mlir:22:5 (k = 1)
// CHECK:      race (RAW) on %A_s[0, 0] in block (0):
// CHECK-NEXT:   first:  write by thread 0 in 'tile.copy' at {{.*}}loop-carried.mlir:28:7 (k = 1)
// CHECK-NEXT:   second: read by thread 1 in 'tile.gemm' at {{.*}}loop-carried.mlir:22:5 (k = 2)
// CHECK-NEXT:   no barrier, wait or mbarrier phase orders them
// CHECK-NEXT: tile-run: 2 race(s) found
