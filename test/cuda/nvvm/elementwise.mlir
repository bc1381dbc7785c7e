// lower-to-nvvm: fill, elementwise and reduce ops as per-thread loops over the
// elements each thread owns.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// Shared operands: cooperative chunks of 4 f32 (16 bytes), 64 chunks over 64 threads;
// each thread computes its chunk as one vector<4xf32> op between aligned 16-byte
// vector loads and stores.
// CHECK-LABEL: gpu.func @binary_unary(
// CHECK:         %[[X:.*]] = memref.view {{.*}} to memref<16x16xf32, 3 : i64>
// CHECK:         %[[Y:.*]] = memref.view {{.*}} to memref<16x16xf32, 3 : i64>
// CHECK:         %[[XV:.*]] = "vector.load"(%[[X]], %[[ROW:.*]], %[[COL:.*]]) <{alignment = 16 : i64}> : (memref<16x16xf32, 3 : i64>, index, index) -> vector<4xf32>
// CHECK-NEXT:    %[[YV:.*]] = "vector.load"(%[[Y]], %[[ROW]], %[[COL]]) <{alignment = 16 : i64}> : (memref<16x16xf32, 3 : i64>, index, index) -> vector<4xf32>
// CHECK-NEXT:    %[[SUM:.*]] = arith.addf %[[XV]], %[[YV]] : vector<4xf32>
// CHECK-NEXT:    "vector.store"(%[[SUM]], %[[X]], %[[ROW]], %[[COL]]) <{alignment = 16 : i64}>
// CHECK-NOT:     arith.addf
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NOT:     arith.maximumf
// CHECK:         math.exp %{{.*}} : vector<4xf32>
// CHECK-NOT:     math.exp
// CHECK:         gpu.return
func.func @binary_unary() attributes {tile.threads = 64 : i64, tile.target = "sm_80"} {
  %x = memref.alloc() : memref<16x16xf32, "shared">
  %y = memref.alloc() : memref<16x16xf32, "shared">
  tile.add<16x16> %x, %y -> %x : memref<16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "shared">
  tile.max<16x16> %x, %y -> %y : memref<16x16xf32, "shared">, memref<16x16xf32, "shared"> -> memref<16x16xf32, "shared">
  tile.exp<16x16> %y -> %y : memref<16x16xf32, "shared"> -> memref<16x16xf32, "shared">
  func.return
}

// -----

// A cast between a register fragment and shared memory follows the fragment's
// layout: 32x32 over 128 threads = 8 registers each, element by element (neighbouring
// elements belong to neighbouring threads).
// CHECK-LABEL: gpu.func @cast(
// CHECK:         %[[F:.*]] = memref.alloca() {alignment = 16 : i64} : memref<8xf32>
// CHECK-COUNT-8: arith.truncf %{{.*}} : f32 to f16
// CHECK:         gpu.return
func.func @cast() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %f = memref.alloc() : memref<32x32xf32, "fragment">
  %h = memref.alloc() : memref<32x32xf16, "shared">
  tile.fill<32x32> %zero -> %f : f32 -> memref<32x32xf32, "fragment">
  tile.cast<32x32> %f -> %h : memref<32x32xf32, "fragment"> -> memref<32x32xf16, "shared">
  func.return
}

// -----

// A row max over shared memory: every thread owns destination elements and loops
// over the reduced axis from -inf.
// CHECK-LABEL: gpu.func @reduce_max(
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK:         %[[MAX:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEG_INF]]) -> (f32) : i32 {
// CHECK:           %[[V:.*]] = memref.load %{{.*}} : memref<64x32xf32, 3 : i64>
// CHECK:           %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK:           scf.yield %[[M]] : f32
// CHECK:         memref.store %[[MAX]], %{{.*}} : memref<64xf32, 3 : i64>
func.func @reduce_max() attributes {tile.threads = 64 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<64x32xf32, "shared">
  %m = memref.alloc() : memref<64xf32, "shared">
  tile.reduce<64x32> max %s -> %m axis 1 : memref<64x32xf32, "shared"> -> memref<64xf32, "shared">
  func.return
}

// -----

// Row reductions of register fragments use warp shuffles.  The gemm accumulator that
// is reduced along rows gets whole rows per warp (4x1 warps of 16x64): a thread folds
// its 16 registers of a row, the quad combines them with xor 1 and xor 2, and lane 0
// of the quad writes the row.  A cooperative 32x16 fragment holds each row in 16
// consecutive lanes: xor 8, 4, 2, 1.
// CHECK-LABEL: gpu.func @fragment_rows(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : i32
// CHECK:         "nvgpu.mma.sync"
// CHECK-COUNT-15: arith.maximumf
// CHECK:         %[[S1:.*]] = "nvvm.shfl.sync"(%{{.*}}, %[[ACC:.*]], %[[ONE]], %{{.*}}) <{kind = #nvvm<shfl_kind bfly>}> : (i32, f32, i32, i32) -> f32
// CHECK:         %[[M1:.*]] = arith.maximumf %[[ACC]], %[[S1]] : f32
// CHECK:         "nvvm.shfl.sync"(%{{.*}}, %[[M1]], %[[TWO]], %{{.*}}) <{kind = #nvvm<shfl_kind bfly>}>
// CHECK:         scf.if
// CHECK:           memref.store %{{.*}} : memref<64xf32, 3 : i64>
// CHECK:         gpu.return
func.func @fragment_rows() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %m = memref.alloc() : memref<64xf32, "shared">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.reduce<64x64> max %C_f -> %m axis 1 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
  func.return
}

// -----

// tile.broadcast: every thread loads, for each register it owns, the shared element
// of that register's row.  The broadcast fragment is combined with a gemm
// accumulator, so it takes the accumulator's mma layout (32 registers each) and the
// division runs on register pairs (c0,c1 and c2,c3 are row neighbours): 16
// vector<2xf32> divisions, each between 8-byte aligned register loads.
// CHECK-LABEL: gpu.func @broadcast_rows(
// CHECK:         %[[ACC:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32xf32>
// CHECK:         %[[ROWS:.*]] = memref.alloca() {alignment = 16 : i64} : memref<32xf32>
// CHECK:         "nvgpu.mma.sync"
// CHECK-COUNT-32: memref.load %{{.*}}[%{{.*}}] : memref<64xf32, 3 : i64>
// CHECK:         %[[NUM:.*]] = "vector.load"(%[[ACC]], %[[REG:.*]]) <{alignment = 8 : i64}> : (memref<32xf32>, index) -> vector<2xf32>
// CHECK-NEXT:    %[[DEN:.*]] = "vector.load"(%[[ROWS]], %[[REG]]) <{alignment = 8 : i64}> : (memref<32xf32>, index) -> vector<2xf32>
// CHECK-NEXT:    %[[QUO:.*]] = arith.divf %[[NUM]], %[[DEN]] : vector<2xf32>
// CHECK-NEXT:    "vector.store"(%[[QUO]], %[[ACC]], %[[REG]]) <{alignment = 8 : i64}>
// CHECK-COUNT-15: arith.divf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK-NOT:     arith.divf
// CHECK:         gpu.return
func.func @broadcast_rows() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %l = memref.alloc() : memref<64xf32, "shared">
  %C_f = memref.alloc() : memref<64x64xf32, "fragment">
  %rows = memref.alloc() : memref<64x64xf32, "fragment">
  tile.fill<64x64> %zero -> %C_f : f32 -> memref<64x64xf32, "fragment">
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<64x64xf32, "fragment">
  tile.broadcast<64x64> %l -> %rows axis 1 : memref<64xf32, "shared"> -> memref<64x64xf32, "fragment">
  tile.div<64x64> %C_f, %rows -> %C_f : memref<64x64xf32, "fragment">, memref<64x64xf32, "fragment"> -> memref<64x64xf32, "fragment">
  func.return
}
