// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// Boundary tiles (docs/nvvm.md): a global region that may leave its array is read
// with predicated loads (0 outside) and written with masked stores; a cp.async chunk
// zero-fills what lies past the array (srcElements); dimensions proven in bounds
// get no predicate.

// A dynamic array: sizes from the descriptor, read once at the kernel's entry; a
// block whose region may reach past it takes, at the edge (the else branch of the
// run-time interior test, below in @epilogue_interior_fast_path), each element under
// "row and column inside", else 0.
// CHECK-LABEL: gpu.func @load_edge(
// CHECK:         %[[COLS:.*]] = memref.dim %A, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[ROWS:.*]] = memref.dim %A, %{{.*}} : memref<?x?xf32>
// CHECK:         } else {
// CHECK:         %[[ROW:.*]] = arith.addi %i, %{{.*}} : index
// CHECK-NEXT:    %[[IN_ROW:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// CHECK-NEXT:    %[[IN_COL:.*]] = arith.cmpi ult, %[[COL:.*]], %[[COLS]] : index
// CHECK-NEXT:    %[[IN:.*]] = arith.andi %[[IN_ROW]], %[[IN_COL]] : i1
// CHECK-NEXT:    %[[V:.*]] = scf.if %[[IN]] -> (f32) {
// CHECK-NEXT:      %[[L:.*]] = memref.load %A[%[[ROW]], %[[COL]]] : memref<?x?xf32>
// CHECK-NEXT:      scf.yield %[[L]] : f32
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      scf.yield %[[Z]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.store %[[V]], %s[%{{.*}}, %[[COL]]]
func.func @load_edge(%A: memref<?x?xf32>, %i: index)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<1x32xf32, "shared">
  tile.copy<1x32> %A[%i, %c0] -> %s : memref<?x?xf32> -> memref<1x32xf32, "shared">
  func.return
}

// -----

// Rows of a static length, their count dynamic: 16-byte cp.async chunks that read
// 8 elements of a row inside the array and none of a row past it (zero-fill).
// CHECK-LABEL: gpu.func @async_edge(
// CHECK:         %[[ROWS:.*]] = memref.dim %A, %{{.*}} : memref<?x64xf16>
// CHECK:         %[[ROW:.*]] = arith.addi %i, %{{.*}} : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// CHECK-NEXT:    %[[N:.*]] = arith.select %[[IN]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    "nvgpu.device_async_copy"(%s, %{{.*}}, %{{.*}}, %A, %[[ROW]], %{{.*}}, %[[N]]) <{dstElements = 8 : index, bypassL1, operandSegmentSizes = array<i32: 1, 2, 1, 2, 1>}>
func.func @async_edge(%A: memref<?x64xf16>, %i: index)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<4x64xf16, "shared">
  %t = pipeline.async_copy<4x64> %A[%i, %c0] -> %s : memref<?x64xf16> -> memref<4x64xf16, "shared">
  pipeline.commit_group [%t]
  pipeline.wait_group 0
  func.return
}

// -----

// A static grid reaching past a 100-column array: the row (at most 64) is proven
// inside, the columns are not; 100 is a multiple of 4, so each aligned 16-byte
// vector is wholly inside or outside and keeps one masked vector store (at the
// edge: the else branch of the interior test).
// CHECK-LABEL: gpu.func @store_edge(
// CHECK:         %[[SIZE:.*]] = arith.constant 100 : index
// CHECK:         } else {
// CHECK:         %[[V:.*]] = "vector.load"(%s
// CHECK-NEXT:    %[[ROW:.*]] = arith.addi %n0, %{{.*}} : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %n0, %{{.*}} : index
// CHECK-NEXT:    %[[IN:.*]] = arith.cmpi ult, %[[COL]], %[[SIZE]] : index
// CHECK-NEXT:    scf.if %[[IN]] {
// CHECK-NEXT:      "vector.store"(%[[V]], %C, %[[ROW]], %[[COL]]) <{alignment = 16 : i64}> : (vector<4xf32>, memref<100x100xf32>, index, index) -> ()
// CHECK-NEXT:    }
func.func @store_edge(%C: memref<100x100xf32>)
    attributes {tile.grid = array<i64: 2>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id x
  %n0 = arith.muli %bx, %c64 : index
  %s = memref.alloc() : memref<1x64xf32, "shared">
  tile.fill<1x64> %zero -> %s : f32 -> memref<1x64xf32, "shared">
  tile.copy<1x64> %s -> %C[%n0, %n0] : memref<1x64xf32, "shared"> -> memref<100x100xf32>
  func.return
}

// -----

// The fast path: a grid and offsets that stay inside a static array need no predicate.
// CHECK-LABEL: gpu.func @store_inside(
// CHECK-NOT:     memref.dim
// CHECK:         scf.if
// CHECK:           "vector.load"(%s
// CHECK-NEXT:      arith.addi %n0
// CHECK-NEXT:      arith.addi %n0
// CHECK-NEXT:      "vector.store"(%{{.*}}, %C
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
func.func @store_inside(%C: memref<128x128xf32>)
    attributes {tile.grid = array<i64: 2>, tile.threads = 32 : i64, tile.target = "sm_80"} {
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %bx = tile.block_id x
  %n0 = arith.muli %bx, %c64 : index
  %s = memref.alloc() : memref<1x64xf32, "shared">
  tile.copy<1x64> %s -> %C[%n0, %n0] : memref<1x64xf32, "shared"> -> memref<128x128xf32>
  func.return
}

// -----

// The interior fast path of a region that may leave its array: one block-uniform test
// "is the whole 2x32 region inside?" (its first element inside, unsigned, and its end
// not past either size); inside, the fragment's elements are stored unpredicated
// (scalars: a dynamic row length proves no vector alignment); at the edge, each
// element under its own predicate.
// CHECK-LABEL: gpu.func @epilogue_interior_fast_path(
// CHECK:         %[[COLS:.*]] = memref.dim %C, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[ROWS:.*]] = memref.dim %C, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[ROW0:.*]] = arith.cmpi ult, %i, %[[ROWS]] : index
// CHECK-NEXT:    %[[COL0:.*]] = arith.cmpi ult, %j, %[[COLS]] : index
// CHECK-NEXT:    %[[FIRST:.*]] = arith.andi %[[ROW0]], %[[COL0]] : i1
// CHECK-NEXT:    %[[ROW_END:.*]] = arith.addi %i, %{{.*}} : index
// CHECK-NEXT:    %[[ROWS_IN:.*]] = arith.cmpi ule, %[[ROW_END]], %[[ROWS]] : index
// CHECK-NEXT:    %[[UP_TO_ROWS:.*]] = arith.andi %[[FIRST]], %[[ROWS_IN]] : i1
// CHECK-NEXT:    %[[COL_END:.*]] = arith.addi %j, %{{.*}} : index
// CHECK-NEXT:    %[[COLS_IN:.*]] = arith.cmpi ule, %[[COL_END]], %[[COLS]] : index
// CHECK-NEXT:    %[[INSIDE:.*]] = arith.andi %[[UP_TO_ROWS]], %[[COLS_IN]] : i1
// CHECK-NEXT:    scf.if %[[INSIDE]] {
// CHECK-NOT:       scf.if
// CHECK:           memref.store %{{.*}}, %C[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK-NOT:       scf.if
// CHECK:           memref.store %{{.*}}, %C[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK-NEXT:    } else {
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        memref.store %{{.*}}, %C[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK-NEXT:      }
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        memref.store %{{.*}}, %C[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.return
func.func @epilogue_interior_fast_path(%C: memref<?x?xf32>, %i: index, %j: index)
    attributes {tile.threads = 32 : i64, tile.target = "sm_80"} {
  %zero = arith.constant 0.0 : f32
  %f = memref.alloc() : memref<2x32xf32, "fragment">
  tile.fill<2x32> %zero -> %f : f32 -> memref<2x32xf32, "fragment">
  tile.copy<2x32> %f -> %C[%i, %j] : memref<2x32xf32, "fragment"> -> memref<?x?xf32>
  func.return
}

// -----

// sm_90: a bulk copy cannot zero-fill.  Guarded by "is the whole box inside?"
// (its first row is, unsigned, and its end is not past the array):
// inside, thread 0 issues the bulk copies; else every thread copies with predicated
// loads, fences and meets the others at a barrier, and thread 0 completes the box's
// 2048 bytes on the mbarrier.
// CHECK-LABEL: gpu.func @bulk_edge(
// CHECK:         %[[BYTES:.*]] = arith.constant 2048 : i32
// CHECK:         %[[FIRST:.*]] = arith.cmpi ult, %i, %[[ROWS:.*]] : index
// CHECK-NEXT:    %[[END:.*]] = arith.addi %i, %{{.*}} : index
// CHECK-NEXT:    %[[LAST:.*]] = arith.cmpi ule, %[[END]], %[[ROWS]] : index
// CHECK-NEXT:    %[[INSIDE:.*]] = arith.andi %[[FIRST]], %[[LAST]] : i1
// CHECK-NEXT:    scf.if %[[INSIDE]] {
// CHECK:           "nvvm.cp.async.bulk.shared.cluster.global"
// CHECK:         } else {
// CHECK:           scf.if %{{.*}} -> (vector<8xf16>) {
// CHECK:           "nvvm.fence.proxy"
// CHECK-NEXT:      nvvm.barrier0
// CHECK:           "nvvm.mbarrier.complete_tx"(%{{.*}}, %[[BYTES]]) : (!llvm.ptr<3>, i32) -> ()
func.func @bulk_edge(%A: memref<100x64xf16>, %i: index)
    attributes {tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<16x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.bulk_copy<16x64> %A[%i, %c0] -> %s, %bars[%c0] : memref<100x64xf16> -> memref<16x64xf16, "shared">, memref<1xi64, "shared">
  func.return
}
