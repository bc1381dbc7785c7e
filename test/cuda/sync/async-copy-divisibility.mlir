// RUN: tile-opt %s --split-input-file -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync,lower-to-nvvm" | filecheck %s

// The copy widths of async-copy and lower-to-nvvm on dynamic arrays come from the
// user's tile.divisibility facts (passes/analysis/divisibility.py), which the
// lowering drops once it has chosen them.

// Rows of a multiple of 8 f16: 16-byte cp.async chunks.
// CHECK-LABEL: gpu.func @rows_of_8(
// CHECK-NOT:     tile.divisibility
// CHECK:         "nvgpu.device_async_copy"(%A_s, {{.*}}) <{dstElements = 8 : index, bypassL1
// CHECK:         "nvgpu.device_async_copy"(%B_s, {{.*}}) <{dstElements = 8 : index, bypassL1
func.func @rows_of_8(%A: memref<?x?xf16> {tile.divisibility = array<i64: 8, 8>},
    %B: memref<?x?xf16> {tile.divisibility = array<i64: 8, 8>}, %C: memref<?x?xf32>, %kt: index)
    attributes {tile.grid = array<i64: 2, 2>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %ko = %c0 to %kt step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %c32 : index
    tile.copy<64x32> %A[%m0, %k0] -> %A_s : memref<?x?xf16> -> memref<64x32xf16, "shared">
    tile.copy<32x64> %B[%k0, %n0] -> %B_s : memref<?x?xf16> -> memref<32x64xf16, "shared">
    tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C[%m0, %n0] : memref<64x64xf32, "fragment"> -> memref<?x?xf32>
  func.return
}

// -----

// Rows of a multiple of 2 f16 only: 4-byte chunks (cached in L1: .ca).
// CHECK-LABEL: gpu.func @rows_of_2(
// CHECK:         "nvgpu.device_async_copy"(%A_s, {{.*}}) <{dstElements = 2 : index, operandSegmentSizes
// CHECK:         "nvgpu.device_async_copy"(%B_s, {{.*}}) <{dstElements = 2 : index, operandSegmentSizes
func.func @rows_of_2(%A: memref<?x?xf16> {tile.divisibility = array<i64: 1, 2>},
    %B: memref<?x?xf16> {tile.divisibility = array<i64: 1, 2>}, %C: memref<?x?xf32>, %kt: index)
    attributes {tile.grid = array<i64: 2, 2>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %ko = %c0 to %kt step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %c32 : index
    tile.copy<64x32> %A[%m0, %k0] -> %A_s : memref<?x?xf16> -> memref<64x32xf16, "shared">
    tile.copy<32x64> %B[%k0, %n0] -> %B_s : memref<?x?xf16> -> memref<32x64xf16, "shared">
    tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C[%m0, %n0] : memref<64x64xf32, "fragment"> -> memref<?x?xf32>
  func.return
}

// -----

// No fact: a row after the first proves no alignment, so the copies stay
// synchronous and are lowered element by element.
// CHECK-LABEL: gpu.func @no_facts(
// CHECK-NOT:     nvgpu.device_async_copy
// CHECK-NOT:     vector.load
// CHECK:         memref.load %A[
// CHECK-NOT:     nvgpu.device_async_copy
func.func @no_facts(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index)
    attributes {tile.grid = array<i64: 2, 2>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.000000e+00 : f32
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c64 : index
  %n0 = arith.muli %bx, %c64 : index
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  pipeline.for %ko = %c0 to %kt step %c1 num_stages = 3 {
    %k0 = arith.muli %ko, %c32 : index
    tile.copy<64x32> %A[%m0, %k0] -> %A_s : memref<?x?xf16> -> memref<64x32xf16, "shared">
    tile.copy<32x64> %B[%k0, %n0] -> %B_s : memref<?x?xf16> -> memref<32x64xf16, "shared">
    tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  }
  tile.copy<64x64> %C_f -> %C[%m0, %n0] : memref<64x64xf32, "fragment"> -> memref<?x?xf32>
  func.return
}
