// RUN: tile-opt %s --split-input-file | filecheck %s
// RUN: %roundtrip

// CHECK-LABEL: func.func @async_copy_groups
func.func @async_copy_groups(%A: memref<256x256xf16>, %k: index) attributes {tile.threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %A_s = memref.alloc() : memref<2x128x64xf16, "shared">
  // CHECK:      %t0 = pipeline.async_copy<128x64> %A[%c0, %k] -> %A_s[%c0, %c0, %c0] : memref<256x256xf16> -> memref<2x128x64xf16, "shared">
  // CHECK-NEXT: %t1 = pipeline.async_copy<128x64> %A[%c0, %k] -> %A_s[%c1, %c0, %c0] : memref<256x256xf16> -> memref<2x128x64xf16, "shared">
  // CHECK-NEXT: pipeline.commit_group [%t0, %t1]
  // CHECK-NEXT: pipeline.commit_group
  // CHECK-NEXT: pipeline.wait_group 1
  // CHECK-NEXT: pipeline.wait_group 0
  %t0 = pipeline.async_copy<128x64> %A[%c0, %k] -> %A_s[%c0, %c0, %c0] : memref<256x256xf16> -> memref<2x128x64xf16, "shared">
  %t1 = pipeline.async_copy<128x64> %A[%c0, %k] -> %A_s[%c1, %c0, %c0] : memref<256x256xf16> -> memref<2x128x64xf16, "shared">
  pipeline.commit_group [%t0, %t1]
  pipeline.commit_group
  pipeline.wait_group 1
  pipeline.wait_group 0
  func.return
}

// -----

// An empty commit ends its line: the next op's results are not its tokens.
// CHECK-LABEL: func.func @empty_commit_before_results
// CHECK:       pipeline.commit_group{{$}}
// CHECK-NEXT:  %c2 = arith.constant 2 : index
// CHECK-NEXT:  pipeline.commit_group{{$}}
// CHECK-NEXT:  %a, %b = "test.op"() : () -> (index, index)
// CHECK-NEXT:  pipeline.commit_group {pipeline.stage = 0 : i64}
func.func @empty_commit_before_results() {
  pipeline.commit_group
  %c2 = arith.constant 2 : index
  pipeline.commit_group
  %a, %b = "test.op"() : () -> (index, index)
  pipeline.commit_group {pipeline.stage = 0 : i64}
  func.return
}

// -----

// CHECK-LABEL: func.func @async_copy_origin
func.func @async_copy_origin(%A: memref<128x64xf32>) {
  %A_s = memref.alloc() : memref<128x64xf32, "shared">
  // CHECK: %t = pipeline.async_copy<128x64> %A -> %A_s : memref<128x64xf32> -> memref<128x64xf32, "shared">
  %t = pipeline.async_copy<128x64> %A -> %A_s : memref<128x64xf32> -> memref<128x64xf32, "shared">
  pipeline.commit_group [%t]
  func.return
}

// -----

// CHECK-LABEL: func.func @barriers
func.func @barriers() attributes {tile.threads = 128 : i64} {
  // CHECK:      pipeline.barrier{{$}}
  // CHECK-NEXT: pipeline.barrier id = 1, threads = 64
  // CHECK-NEXT: pipeline.barrier id = 15, threads = 128
  pipeline.barrier
  pipeline.barrier id = 1, threads = 64
  pipeline.barrier id = 15, threads = 128
  func.return
}

// -----

// CHECK-LABEL: func.func @mbarriers
func.func @mbarriers(%A: memref<256x256xf16>, %parity: index) attributes {tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %A_s = memref.alloc() : memref<2x128x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  // CHECK:      pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  // CHECK-NEXT: pipeline.mbarrier_arrive %bars[%c0] : memref<2xi64, "shared">
  // CHECK-NEXT: pipeline.mbarrier_arrive_expect_tx %bars[%c1], bytes = 16384 : memref<2xi64, "shared">
  // CHECK-NEXT: pipeline.bulk_copy<128x64> %A[%c0, %c0] -> %A_s[%c1, %c0, %c0], %bars[%c1] : memref<256x256xf16> -> memref<2x128x64xf16, "shared">, memref<2xi64, "shared">
  // CHECK-NEXT: pipeline.mbarrier_wait_parity %bars[%c1], %parity : memref<2xi64, "shared">
  // CHECK-NEXT: pipeline.mbarrier_test_wait %bars[%c0], %c1 : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_arrive %bars[%c0] : memref<2xi64, "shared">
  pipeline.mbarrier_arrive_expect_tx %bars[%c1], bytes = 16384 : memref<2xi64, "shared">
  pipeline.bulk_copy<128x64> %A[%c0, %c0] -> %A_s[%c1, %c0, %c0], %bars[%c1] : memref<256x256xf16> -> memref<2x128x64xf16, "shared">, memref<2xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c1], %parity : memref<2xi64, "shared">
  pipeline.mbarrier_test_wait %bars[%c0], %c1 : memref<2xi64, "shared">
  func.return
}

// -----

// Sync ops are statements of a pipelined loop and keep their stage/order.
// CHECK-LABEL: func.func @in_pipeline
func.func @in_pipeline(%A: memref<1024x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // CHECK:      %t = pipeline.async_copy<64x64> %A[%m, %c0] -> %s {pipeline.stage = 0 : i64, pipeline.order = 0 : i64}
  // CHECK-NEXT: pipeline.commit_group [%t] {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
  // CHECK-NEXT: pipeline.wait_group 0 {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
  pipeline.for %k = %c0 to %n step %c1 {
    %m = arith.muli %k, %c64 : index
    %t = pipeline.async_copy<64x64> %A[%m, %c0] -> %s {pipeline.stage = 0 : i64, pipeline.order = 0 : i64} : memref<1024x64xf16> -> memref<64x64xf16, "shared">
    pipeline.commit_group [%t] {pipeline.stage = 0 : i64, pipeline.order = 1 : i64}
    pipeline.wait_group 0 {pipeline.stage = 1 : i64, pipeline.order = 2 : i64}
  }
  func.return
}

// -----

// The async proxy fence orders the generic mbarrier inits before the bulk copies
// that complete on them.
// CHECK-LABEL: func.func @fence_proxy_async
// CHECK:       pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
// CHECK-NEXT:  pipeline.fence_proxy_async{{$}}
// CHECK-NEXT:  pipeline.barrier
func.func @fence_proxy_async() attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.fence_proxy_async
  pipeline.barrier
  func.return
}
