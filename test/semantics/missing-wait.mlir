// RUN: not tile-run %s --index-arg n=3 --check-races --quiet 2>&1 | filecheck %s
// The double-buffered loop of Inputs/double_buffer.mlir without its wait_group: the gemm reads a slot the async copy may still be writing (RAW).

func.func @kernel(%A: memref<1088x32xf16>, %B: memref<32x32xf16>, %C: memref<64x32xf32>, %n: index)
    attributes {tile.grid = array<i64: 1>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<2x64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x32xf16, "shared">
  %C_f = memref.alloc() : memref<64x32xf32, "fragment">
  tile.copy<32x32> %B -> %B_s : memref<32x32xf16> -> memref<32x32xf16, "shared">
  tile.fill<64x32> %zero -> %C_f : f32 -> memref<64x32xf32, "fragment">
  %has_first = arith.cmpi sgt, %n, %c0 : index
  scf.if %has_first {
    %t = pipeline.async_copy<64x32> %A[%c0, %c0] -> %A_s[%c0, %c0, %c0] : memref<1088x32xf16> -> memref<2x64x32xf16, "shared">
    pipeline.commit_group [%t]
  }
  pipeline.barrier
  scf.for %k = %c0 to %n step %c1 {
    %next = arith.addi %k, %c1 : index
    %has_next = arith.cmpi slt, %next, %n : index
    scf.if %has_next {
      %next_slot = arith.remui %next, %c2 : index
      %next_row = arith.muli %next, %c64 : index
      %t = pipeline.async_copy<64x32> %A[%next_row, %c0] -> %A_s[%next_slot, %c0, %c0] : memref<1088x32xf16> -> memref<2x64x32xf16, "shared">
      pipeline.commit_group [%t]
    } else {
      pipeline.commit_group
    }
    pipeline.barrier
    %slot = arith.remui %k, %c2 : index
    tile.gemm<64x32x32> %A_s[%slot, %c0, %c0], %B_s -> %C_f : memref<2x64x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<64x32xf32, "fragment">
    pipeline.barrier
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}

// The prologue's copy into slot 0 is read by the first gemm...
// CHECK:      race (RAW) on %A_s[0, 0, 0] in block (0):
// CHECK-NEXT:   first:  write by the async copy engine (thread 0) in 'pipeline.async_copy' at {{.*}}missing-wait.mlir:18:5
// CHECK-NEXT:   second: read by thread 0 in 'tile.gemm' at {{.*}}missing-wait.mlir:35:5 (k = 0)
// ...and overwritten by the copy that iteration 1 issues for iteration 2.
// CHECK:      race (WAW) on %A_s[0, 0, 0] in block (0):
// CHECK-NEXT:   first:  write by the async copy engine (thread 0) in 'pipeline.async_copy' at {{.*}}missing-wait.mlir:18:5
// CHECK-NEXT:   second: write by the async copy engine (thread 0) in 'pipeline.async_copy' at {{.*}}missing-wait.mlir:28:7 (k = 1)
// CHECK:      race (RAW) on %A_s[1, 0, 0] in block (0):
// CHECK-NEXT:   first:  write by the async copy engine (thread 0) in 'pipeline.async_copy' at {{.*}}missing-wait.mlir:28:7 (k = 0)
// CHECK-NEXT:   second: read by thread 0 in 'tile.gemm' at {{.*}}missing-wait.mlir:35:5 (k = 1)
// CHECK:      tile-run: {{[0-9]+}} race(s) found

// A sweep over trip counts: n=0 issues no copy and reports nothing; each run that races
// reports its findings prefixed with its trip count, and the status is the worst run's.
// RUN: not tile-run %s --index-arg n=0,1,3 --check-races --quiet 2>&1 | filecheck %s --check-prefix=SWEEP
// SWEEP-NOT:  n=0:
// SWEEP:      n=1: race (RAW) on %A_s[0, 0, 0] in block (0):
// SWEEP:      tile-run: n=1: 2 race(s) found
// SWEEP-NEXT: n=3: race (RAW) on %A_s[0, 0, 0] in block (0):
// SWEEP:      tile-run: n=3: 7 race(s) found
