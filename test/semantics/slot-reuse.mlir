// RUN: not tile-run %s --index-arg n=3 --check-races --quiet 2>&1 | filecheck %s
// Without the barrier that ends an iteration: the next iteration's async copy refills the slot this iteration's gemm reads (WAR, loop-carried).

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
    pipeline.wait_group 1
    pipeline.barrier
    %slot = arith.remui %k, %c2 : index
    tile.gemm<64x32x32> %A_s[%slot, %c0, %c0], %B_s -> %C_f : memref<2x64x32xf16, "shared">, memref<32x32xf16, "shared"> -> memref<64x32xf32, "fragment">
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}

// CHECK:      race (WAR) on %A_s[0, 0, 0] in block (0):
// CHECK-NEXT:   first:  read by thread 1 in 'tile.gemm' at {{.*}}slot-reuse.mlir:36:5 (k = 0)
// CHECK-NEXT:   second: write by the async copy engine (thread 0) in 'pipeline.async_copy' at {{.*}}slot-reuse.mlir:28:7 (k = 1)
// CHECK-NEXT:   no barrier, wait or mbarrier phase orders them
// CHECK-NEXT: tile-run: 1 race(s) found
