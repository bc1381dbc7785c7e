// lower-to-nvvm: a loop with constant bounds counts in i32 (one 32-bit exit test per
// iteration instead of a 64-bit compare pair); the body sees the counter through an
// index_cast.  A dynamic bound, or one whose last increment would wrap in i32, keeps
// the index counter.  Loops LLVM unrolls fully (the copy rounds) keep theirs too.

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// Rows 32 .. 1023 of A: proven inside, so no boundary test wraps the copy.
// CHECK-LABEL: gpu.func @constant_bounds(
// CHECK:         %[[LB:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[UB:.*]] = arith.constant 32 : i32
// CHECK-NEXT:    %[[STEP:.*]] = arith.constant 1 : i32
// CHECK-NEXT:    scf.for %[[I:.*]] = %[[LB]] to %[[UB]] step %[[STEP]]  : i32 {
// CHECK-NEXT:      %[[K:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT:      %{{.*}} = arith.muli %[[K]], %{{.*}} : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<full = true>>}
// CHECK-NEXT:      nvvm.barrier0
func.func @constant_bounds(%A: memref<1024x1024xf16>) attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %A_s = memref.alloc() : memref<32x64xf16, "shared">
  scf.for %k = %c1 to %c32 step %c1 {
    %row = arith.muli %k, %c32 : index
    tile.copy<32x64> %A[%row, %c0] -> %A_s[%c0, %c0] : memref<1024x1024xf16> -> memref<32x64xf16, "shared">
    pipeline.barrier
  }
  func.return
}

// -----

// CHECK-LABEL: gpu.func @dynamic_bound(
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %{{.*}} = arith.muli %[[K]], %{{.*}} : index
func.func @dynamic_bound(%A: memref<1024x1024xf16>, %n: index) attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  scf.for %k = %c0 to %n step %c1 {
    %row = arith.muli %k, %c32 : index
    tile.copy<64x64> %A[%row, %c0] -> %A_s[%c0, %c0] : memref<1024x1024xf16> -> memref<64x64xf16, "shared">
    pipeline.barrier
  }
  func.return
}

// -----

// The exit test computes iv + step before comparing: 2147483647 + 1 wraps in i32.
// CHECK-LABEL: gpu.func @wrapping_bound(
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      nvvm.barrier0
func.func @wrapping_bound() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %max = arith.constant 2147483647 : index
  scf.for %k = %c0 to %max step %c1 {
    pipeline.barrier
  }
  func.return
}

// -----

// A bound outside i32 keeps the index counter, even for a loop that never runs.
// CHECK-LABEL: gpu.func @wide_lower_bound(
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      nvvm.barrier0
func.func @wide_lower_bound() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %wide = arith.constant 4294967296 : index
  scf.for %k = %wide to %c0 step %c1 {
    pipeline.barrier
  }
  func.return
}

// -----

// A loop that issues cp.async reads its counter through an opaque move, so that
// LLVM's strength reduction cannot turn the copies' view bases into 64-bit pointer
// recurrences, and stays rolled (ptxas would unroll a short one completely).
// CHECK-LABEL: gpu.func @async_copies(
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}}  : i32 {
// CHECK-NEXT:      %[[HIDDEN:.*]] = llvm.inline_asm "mov.b32 $0, $1;", "=r,r" %[[I]] : (i32) -> i32
// CHECK-NEXT:      %[[K:.*]] = arith.index_cast %[[HIDDEN]] : i32 to index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK:           %[[VIEW:.*]] = memref.subview %{{.*}}[%[[ROW]], 0] [64, 64] [1, 1] : memref<1024x1024xf16> to memref<64x64xf16, strided<[1024, 1], offset: ?>>
// CHECK:             "nvgpu.device_async_copy"(%{{.*}}, %[[VIEW]], %{{.*}})
// CHECK:           } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<full = true>>}
// CHECK:         } {loop_annotation = #llvm.loop_annotation<unroll = #llvm.loop_unroll<disable = true>>}
func.func @async_copies(%A: memref<1024x1024xf16>) attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  scf.for %k = %c1 to %c16 step %c1 {
    %row = arith.muli %k, %c64 : index
    %t = pipeline.async_copy<64x64> %A[%row, %c0] -> %A_s : memref<1024x1024xf16> -> memref<64x64xf16, "shared">
    pipeline.commit_group [%t]
    pipeline.wait_group 0
    pipeline.barrier
  }
  func.return
}
