// lower-to-nvvm: copies become per-thread loops; 16-byte vector accesses where the
// row length and the offsets prove 16-byte alignment, scalar accesses otherwise.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// A 128x64 f16 tile is 1024 chunks of 8 elements: 8 rounds of 128 threads, each
// round 16 whole rows, so round r is the thread's first chunk 16 r rows down (one
// address and constant offsets once LLVM unrolls the loop, as it is asked to).
// CHECK-LABEL: gpu.func @copy_in(
// CHECK-SAME:    %{{.*}}: memref<1024x1024xf16>) workgroup(%[[SMEM:[^:]*]]: memref<16384xi8, 3 : i64> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 8, 1>}
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[A_S:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<16384xi8, 3 : i64> to memref<128x64xf16, 3 : i64>
// CHECK:         %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK:         %[[ROW:.*]] = arith.divui
// CHECK-NEXT:    %[[COL:.*]] = arith.remui
// CHECK-NEXT:    scf.for %[[ROUND:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ROWS:.*]] = arith.muli %[[ROUND]], %[[C16]] : index
// CHECK-NEXT:      %[[ROW_R:.*]] = arith.addi %[[ROW]], %[[ROWS]] : index
// CHECK:           %[[V:.*]] = "vector.load"(%{{.*}}) <{alignment = 16 : i64}> : (memref<1024x1024xf16>, index, index) -> vector<8xf16>
// CHECK-NEXT:      "vector.store"(%[[V]], %[[A_S]], %[[ROW_R]], %[[COL]]) <{alignment = 16 : i64}> : (vector<8xf16>, memref<128x64xf16, 3 : i64>, index, index) -> ()
// CHECK-NEXT:    } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<full = true>>}
// CHECK:         gpu.return
func.func @copy_in(%A: memref<1024x1024xf16>)
    attributes {tile.grid = array<i64: 8, 8>, tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c64 = arith.constant 64 : index
  %bx = tile.block_id x
  %k = arith.muli %bx, %c64 : index
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  tile.copy<128x64> %A[%k, %k] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
  func.return
}

// -----

// An offset that is not provably a multiple of 8 elements: scalar copies, same
// thread mapping (each thread still owns 8 consecutive elements).
// CHECK-LABEL: gpu.func @copy_unaligned(
// CHECK-NOT:     vector.load
// CHECK-COUNT-8: memref.load %{{.*}} : memref<1024xf16>
// CHECK-NOT:     vector.store
// CHECK:         gpu.return
func.func @copy_unaligned(%A: memref<1024xf16>, %off: index)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<256xf16, "shared">
  tile.copy<256> %A[%off] -> %A_s : memref<1024xf16> -> memref<256xf16, "shared">
  func.return
}

// -----

// A register fragment is copied out element by element under its layout: 128x128
// f32 over 128 threads is 128 registers per thread, register r at element r*128+tid.
// CHECK-LABEL: gpu.func @copy_out(
// CHECK:         %[[FRAG:.*]] = memref.alloca() {alignment = 16 : i64} : memref<128xf32>
// CHECK-COUNT-128: memref.load %[[FRAG]][%{{.*}}] : memref<128xf32>
// CHECK:         gpu.return
func.func @copy_out(%C: memref<1024x1024xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %zero = arith.constant 0.000000e+00 : f32
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  tile.copy<128x128> %C_f -> %C : memref<128x128xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}

// -----

// The accumulator of a tensor-core gemm leaves in pairs: c0,c1 (and c2,c3) are
// neighbours in a row, so each pair is one aligned 8-byte vector store to global
// memory (a row offset keeps the columns even).
// CHECK-LABEL: gpu.func @accumulator_out(
// CHECK:         %[[FRAG:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32xf32>
// CHECK:         "nvgpu.mma.sync"
// CHECK:         %[[PAIR:.*]] = "vector.load"(%[[FRAG]], %{{.*}}) <{alignment = 8 : i64}> : (memref<32xf32>, index) -> vector<2xf32>
// CHECK:         "vector.store"(%[[PAIR]], %{{.*}}, %{{.*}}, %{{.*}}) <{alignment = 8 : i64}> : (vector<2xf32>, memref<1024x1024xf32>, index, index) -> ()
// CHECK-COUNT-15: "vector.store"(%{{.*}}) <{alignment = 8 : i64}> : (vector<2xf32>, memref<1024x1024xf32>, index, index) -> ()
// CHECK-NOT:     memref.store
// CHECK:         gpu.return
func.func @accumulator_out(%C: memref<1024x1024xf32>, %row: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C[%row, %c0] : memref<64x64xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}

// -----

// A column offset that may be odd would misalign the pairs: element by element.
// CHECK-LABEL: gpu.func @accumulator_out_odd(
// CHECK:         "nvgpu.mma.sync"
// CHECK-NOT:     "vector.store"({{.*}}memref<1024x1024xf32>
// CHECK-COUNT-32: memref.store %{{.*}} : memref<1024x1024xf32>
// CHECK:         gpu.return
func.func @accumulator_out_odd(%C: memref<1024x1024xf32>, %col: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.copy<64x64> %C_f -> %C[%c0, %col] : memref<64x64xf32, "fragment"> -> memref<1024x1024xf32>
  func.return
}
