// lower-to-nvvm XOR-swizzles the shared tiles tensor cores read: every access of such
// a tile permutes its 16-byte units by the row, so that the 8 rows an ldmatrix phase
// reads at one column lie in 8 different bank groups (nvvm_swizzle.py).

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s
// RUN: tile-opt %s --split-input-file -p 'lower-to-nvvm{swizzle-shared=false}' | filecheck %s --check-prefix=OFF

// Rows of 128 bytes (64 f16, 8 units): column ^ ((row % 8) * 8).  The copy's 16-byte
// store and the gemm's ldmatrix apply the same permutation.  The copy's rounds are 16
// rows apart, whole periods of the permutation: the phase is the first round's.
// CHECK-LABEL: gpu.func @rows_of_128_bytes(
// CHECK:         %[[A_S:.*]] = memref.view {{.*}} {tilepipe.swizzle = "col ^ ((row % 8) * 8)"} : {{.*}} to memref<64x64xf16, 3 : i64>
// CHECK:         %[[ROW:.*]] = arith.divui %{{.*}}, %[[C64:.*]] : index
// CHECK-NEXT:    %[[COL:.*]] = arith.remui %{{.*}}, %[[C64]] : index
// CHECK-NEXT:    scf.for %[[ROUND:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[ROWS:.*]] = arith.muli %[[ROUND]], %{{.*}} : index
// CHECK-NEXT:      %[[ROW_R:.*]] = arith.addi %[[ROW]], %[[ROWS]] : index
// CHECK-NEXT:      %[[CHUNK:.*]] = "vector.load"(%{{.*}}, %[[ROW_R]], %[[COL]])
// CHECK-NEXT:      %[[PHASE:.*]] = arith.remui %[[ROW]], %[[C8:.*]] : index
// CHECK-NEXT:      %[[MASK:.*]] = arith.muli %[[PHASE]], %[[C8]] : index
// CHECK-NEXT:      %[[SWIZZLED:.*]] = arith.xori %[[COL]], %[[MASK]] : index
// CHECK-NEXT:      "vector.store"(%[[CHUNK]], %[[A_S]], %[[ROW_R]], %[[SWIZZLED]]) <{alignment = 16 : i64}>
// CHECK-NEXT:    } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<full = true>>}
// CHECK:         nvvm.barrier0
// CHECK:         %[[LD_COL:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    "nvgpu.ldmatrix"(%[[A_S]], %{{.*}}, %[[LD_COL]]) <{numTiles = 4 : i32, transpose = false}>
// CHECK:         gpu.return

// OFF-LABEL:   gpu.func @rows_of_128_bytes(
// OFF-NOT:     tilepipe.swizzle
// OFF-NOT:     arith.xori
// OFF:         "nvgpu.ldmatrix"
// OFF:         gpu.return
func.func @rows_of_128_bytes(%A: memref<64x64xf16>, %B: memref<64x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.copy<64x64> %A -> %A_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  tile.copy<64x64> %B -> %B_s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  pipeline.barrier
  tile.gemm<64x64x64> %A_s, %B_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// Rows of 64 bytes (32 f16, 4 units): two rows share a 128-byte line, so the phase
// is (row / 2) % 4 -- upstream's `col ^ ((row & 6) << 2)` for 128x32xf16.
// CHECK-LABEL: gpu.func @rows_of_64_bytes(
// CHECK:         memref.view {{.*}} {tilepipe.swizzle = "col ^ ((row / 2 % 4) * 8)"} : {{.*}} to memref<64x32xf16, 3 : i64>
// CHECK:         %[[ROW:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      arith.muli
// CHECK-NEXT:      %[[ROW_R:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK-NEXT:      %[[CHUNK:.*]] = "vector.load"
// CHECK-NEXT:      %[[PAIR:.*]] = arith.divui %[[ROW]], %[[C2:.*]] : index
// CHECK-NEXT:      %[[PHASE:.*]] = arith.remui %[[PAIR]], %[[C4:.*]] : index
// CHECK-NEXT:      %[[MASK:.*]] = arith.muli %[[PHASE]], %[[C8:.*]] : index
// CHECK-NEXT:      %[[SWIZZLED:.*]] = arith.xori %[[COL]], %[[MASK]] : index
// CHECK-NEXT:      "vector.store"(%[[CHUNK]], %{{.*}}, %[[ROW_R]], %[[SWIZZLED]])
// CHECK:         gpu.return
func.func @rows_of_64_bytes(%A: memref<64x32xf16>, %B: memref<32x64xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  tile.copy<64x32> %A -> %A_s : memref<64x32xf16> -> memref<64x32xf16, "shared">
  tile.copy<32x64> %B -> %B_s : memref<32x64xf16> -> memref<32x64xf16, "shared">
  pipeline.barrier
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

// No swizzle where no tensor core reads the tile (f32 runs on the FMA path) ...
// CHECK-LABEL: gpu.func @fma_path(
// CHECK-NOT:     tilepipe.swizzle
// CHECK-NOT:     arith.xori
// CHECK:         gpu.return
func.func @fma_path(%A: memref<32x32xf32>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<32x32xf32, "shared">
  %B_s = memref.alloc() : memref<32x32xf32, "shared">
  %C_f = memref.alloc() : memref<32x32xf32, "fragment">
  tile.copy<32x32> %A -> %A_s : memref<32x32xf32> -> memref<32x32xf32, "shared">
  tile.copy<32x32> %A -> %B_s : memref<32x32xf32> -> memref<32x32xf32, "shared">
  pipeline.barrier
  tile.gemm<32x32x32> %A_s, %B_s -> %C_f : memref<32x32xf32, "shared">, memref<32x32xf32, "shared"> -> memref<32x32xf32, "fragment">
  func.return
}

// -----

// ... nor where a bulk copy fills the tile: cp.async.bulk moves each row as one
// contiguous run, which a permutation of the row's units would break (the tensor-map
// TMA's hardware swizzle would be the sm_90 way; tilepipe's bulk copies are the
// non-tensor form).
// CHECK-LABEL: gpu.func @bulk_copied(
// CHECK-NOT:     tilepipe.swizzle
// CHECK-NOT:     arith.xori
// CHECK:         "nvgpu.ldmatrix"
// CHECK:         gpu.return
func.func @bulk_copied(%A: memref<1024x1024xf16>) attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.barrier
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<1xi64, "shared">
  pipeline.bulk_copy<64x64> %A[%c0, %c0] -> %A_s, %bars[%c0] : memref<1024x1024xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  tile.gemm<64x64x64> %A_s, %A_s -> %C_f : memref<64x64xf16, "shared">, memref<64x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  func.return
}
