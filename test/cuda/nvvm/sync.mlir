// lower-to-nvvm: the scheduled-level sync ops as NVVM barriers, cp.async groups and
// mbarrier ops (test-wait polling on sm_80, try-wait parity on sm_90).

// RUN: tile-opt %s --split-input-file -p lower-to-nvvm | filecheck %s

// The kernel's integer constants come first, created once at its entry.
// CHECK-LABEL: gpu.func @cp_async_and_barriers(
// CHECK-DAG:     %[[ID:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[N:.*]] = arith.constant 64 : i32
// A region proven inside its array is read through a view at its origin.
// CHECK:         %[[VIEW:.*]] = memref.subview %{{.*}}[0, 0] [64, 64] [1, 1] : memref<1024x1024xf16> to memref<64x64xf16, strided<[1024, 1]>>
// CHECK:         %[[COPIES:.*]] = "nvgpu.device_async_copy"(%{{.*}}, %[[VIEW]], %{{.*}}) <{dstElements = 8 : index, bypassL1, operandSegmentSizes = array<i32: 1, 2, 1, 2, 0>}> : (memref<64x64xf16, 3 : i64>, index, index, memref<64x64xf16, strided<[1024, 1]>>, index, index) -> !nvgpu.device.async.token
// CHECK:         nvvm.cp.async.commit.group
// CHECK-NEXT:    nvvm.cp.async.wait.group 1
// CHECK-NEXT:    nvvm.barrier0
// A partial barrier counts arriving warps: only its warps 0..1 execute it.
// CHECK-NEXT:    %[[TID:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[LT:.*]] = arith.cmpi ult, %[[TID]], %{{.*}} : index
// CHECK-NEXT:    scf.if %[[LT]] {
// CHECK-NEXT:      "nvvm.barrier"(%[[ID]], %[[N]]) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i32, i32) -> ()
// CHECK-NEXT:    }
func.func @cp_async_and_barriers(%A: memref<1024x1024xf16>)
    attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %t = pipeline.async_copy<64x64> %A[%c0, %c0] -> %A_s : memref<1024x1024xf16> -> memref<64x64xf16, "shared">
  pipeline.commit_group [%t]
  pipeline.wait_group 1
  pipeline.barrier
  pipeline.barrier id = 1, threads = 64
  func.return
}

// -----

// sm_80: thread 0 initialises and arrives; every thread polls test_wait.parity.
// CHECK-LABEL: gpu.func @mbarrier_sm80(
// CHECK:         %[[BARS:.*]] = memref.view {{.*}} to memref<2xi64, 3 : i64>
// CHECK:         scf.if
// CHECK:           "memref.extract_aligned_pointer_as_index"(%[[BARS]])
// CHECK:           %[[PTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:           "nvvm.mbarrier.init"(%[[PTR]], %{{.*}}) : (!llvm.ptr<3>, i32) -> ()
// CHECK:         scf.if
// CHECK:           "nvvm.mbarrier.arrive"(%{{.*}}) : (!llvm.ptr<3>) -> i64
// CHECK:         scf.while
// CHECK:           %[[DONE:.*]] = "nvvm.mbarrier.test.wait"(%{{.*}}, %{{.*}}) : (!llvm.ptr<3>, i32) -> i1
// CHECK:           scf.condition
// CHECK-NOT:     try_wait
// CHECK:         gpu.return
func.func @mbarrier_sm80() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c1], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_arrive %bars[%c1] : memref<2xi64, "shared">
  pipeline.mbarrier_test_wait %bars[%c1], %c0 : memref<2xi64, "shared">
  func.return
}

// -----

// sm_90: the parity wait is nvvm.mbarrier.try_wait.parity; expect-tx exists.
// CHECK-LABEL: gpu.func @mbarrier_sm90(
// CHECK:         "nvvm.mbarrier.arrive"(%{{.*}}) : (!llvm.ptr<3>) -> i64
// CHECK:         "nvvm.mbarrier.arrive.expect_tx"(%{{.*}}, %{{.*}}) : (!llvm.ptr<3>, i32) -> ()
// CHECK:         %[[PARITY:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         "nvvm.mbarrier.try_wait.parity"(%{{.*}}, %[[PARITY]], %{{.*}}) : (!llvm.ptr<3>, i32, i32) -> ()
// CHECK-NOT:     test.wait
func.func @mbarrier_sm90() attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 128 : memref<1xi64, "shared">
  pipeline.mbarrier_arrive %bars[%c0] : memref<1xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  func.return
}

// -----

// sm_90 bulk copies: thread 0 issues one cp.async.bulk per 128-byte row into the
// shared::cluster window (!llvm.ptr<7>), completing on the mbarrier.
// CHECK-LABEL: gpu.func @bulk_copy(
// CHECK:         scf.if
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:             %[[DST:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<7>
// CHECK:             %[[SRC:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK:             %[[BAR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:             "nvvm.cp.async.bulk.shared.cluster.global"(%[[DST]], %[[SRC]], %[[BAR]], %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>}> : (!llvm.ptr<7>, !llvm.ptr<1>, !llvm.ptr<3>, i32) -> ()
func.func @bulk_copy(%A: memref<1024x1024xf16>) attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %A_s = memref.alloc() : memref<2x64x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.barrier
  pipeline.bulk_copy<64x64> %A[%c64, %c0] -> %A_s[%c0, %c0, %c0], %bars[%c0] : memref<1024x1024xf16> -> memref<2x64x64xf16, "shared">, memref<2xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<2xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
  func.return
}
