// Inputs/sequential.mlir scheduled by hand: a double-buffered cp.async pipeline.
// Iteration k prefetches row block k+1 into slot (k+1) mod 2, waits for block k
// (wait_group 1 leaves the prefetch in flight), then multiplies slot k mod 2.  The
// barrier after the wait also orders the copy of B before the first gemm.
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
    pipeline.barrier
  }
  tile.copy<64x32> %C_f -> %C : memref<64x32xf32, "fragment"> -> memref<64x32xf32>
  func.return
}
