// RUN: tile-opt %s --split-input-file --verify-diagnostics

func.func @async_copy_into_global(%A: memref<128x64xf16>, %B: memref<128x64xf16>) {
  // expected-error @+1 {{dst may not live in global memory}}
  %t = pipeline.async_copy<128x64> %A -> %B : memref<128x64xf16> -> memref<128x64xf16>
  func.return
}

// -----

func.func @async_copy_from_shared(%A: memref<128x64xf16, "shared">) {
  %B = memref.alloc() : memref<128x64xf16, "shared">
  // expected-error @+1 {{src may not live in shared memory}}
  %t = pipeline.async_copy<128x64> %A -> %B : memref<128x64xf16, "shared"> -> memref<128x64xf16, "shared">
  func.return
}

// -----

func.func @async_copy_element_types(%A: memref<128x64xf32>) {
  %B = memref.alloc() : memref<128x64xf16, "shared">
  // expected-error @+1 {{source and destination element types differ (f32 vs f16)}}
  %t = pipeline.async_copy<128x64> %A -> %B : memref<128x64xf32> -> memref<128x64xf16, "shared">
  func.return
}

// -----

func.func @async_copy_out_of_bounds(%A: memref<128x64xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %B = memref.alloc() : memref<128x64xf16, "shared">
  // expected-error @+1 {{dst region [1, 129) is out of bounds in dimension 0 of size 128}}
  %t = pipeline.async_copy<128x64> %A -> %B[%c1, %c0] : memref<128x64xf16> -> memref<128x64xf16, "shared">
  func.return
}

// -----

func.func @negative_wait_group() {
  // expected-error @+1 {{the pending group count must be >= 0, got -1}}
  pipeline.wait_group -1
  func.return
}

// -----

func.func @barrier_id_out_of_range() {
  // expected-error @+1 {{barrier id must be in [0, 16), got 16}}
  pipeline.barrier id = 16, threads = 64
  func.return
}

// -----

func.func @barrier_not_whole_warps() {
  // expected-error @+1 {{a partial barrier's thread count must be a positive multiple of the warp size (32), got 48}}
  pipeline.barrier id = 1, threads = 48
  func.return
}

// -----

func.func @barrier_more_threads_than_block() attributes {tile.threads = 64 : i64} {
  // expected-error @+1 {{a partial barrier over 128 threads in a block of 64 threads}}
  pipeline.barrier id = 1, threads = 128
  func.return
}

// -----

func.func @mbarrier_not_i64() {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi32, "shared">
  // expected-error @+1 {{mbarriers must live in a memref<N x i64, "shared">, got memref<2xi32, "shared">}}
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi32, "shared">
  func.return
}

// -----

func.func @mbarrier_not_shared(%bars: memref<2xi64>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{mbarriers must live in a memref<N x i64, "shared">, got memref<2xi64>}}
  pipeline.mbarrier_arrive %bars[%c0] : memref<2xi64>
  func.return
}

// -----

func.func @mbarrier_index_out_of_bounds() {
  %c2 = arith.constant 2 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{mbarrier index 2 is out of bounds for 2 mbarriers}}
  pipeline.mbarrier_arrive %bars[%c2] : memref<2xi64, "shared">
  func.return
}

// -----

func.func @mbarrier_zero_arrivals() {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{arrivals must be positive, got 0}}
  pipeline.mbarrier_init %bars[%c0], arrivals = 0 : memref<2xi64, "shared">
  func.return
}

// -----

func.func @mbarrier_zero_bytes() {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{bytes must be positive, got 0}}
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 0 : memref<2xi64, "shared">
  func.return
}

// -----

func.func @mbarrier_bad_parity() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{parity must be 0 or 1, got 2}}
  pipeline.mbarrier_wait_parity %bars[%c0], %c2 : memref<2xi64, "shared">
  func.return
}

// -----

func.func @mbarrier_two_indices() {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{expected one mbarrier index, e.g. %bars[%i]}}
  "pipeline.mbarrier_arrive"(%bars, %c0, %c0) : (memref<2xi64, "shared">, index, index) -> ()
  func.return
}

// -----

func.func @bulk_copy_barrier_space(%A: memref<128x64xf16>, %bars: memref<2xi64>) {
  %c0 = arith.constant 0 : index
  %B = memref.alloc() : memref<128x64xf16, "shared">
  // expected-error @+1 {{mbarriers must live in a memref<N x i64, "shared">, got memref<2xi64>}}
  pipeline.bulk_copy<128x64> %A -> %B, %bars[%c0] : memref<128x64xf16> -> memref<128x64xf16, "shared">, memref<2xi64>
  func.return
}

// -----

func.func @bulk_copy_into_global(%A: memref<128x64xf16>, %B: memref<128x64xf16>) {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{dst may not live in global memory}}
  pipeline.bulk_copy<128x64> %A -> %B, %bars[%c0] : memref<128x64xf16> -> memref<128x64xf16>, memref<2xi64, "shared">
  func.return
}

// -----

func.func @commit_non_token(%x: index) {
  // expected-error @+1 {{index should be of base attribute pipeline.token}}
  "pipeline.commit_group"(%x) : (index) -> ()
  func.return
}

// -----

func.func @barrier_id_twice() {
  // expected-error @+1 {{'id' given twice}}
  pipeline.barrier id = 1, id = 2
  func.return
}

// -----

func.func @mbarrier_unknown_property() {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<2xi64, "shared">
  // expected-error @+1 {{expected one of arrivals}}
  pipeline.mbarrier_init %bars[%c0], count = 1 : memref<2xi64, "shared">
  func.return
}

// -----

func.func @fence_proxy_async_on_sm80() attributes {tile.target = "sm_80"} {
  // expected-error @+1 {{the async proxy fence needs a target with bulk copies (sm_90); the kernel's target is sm_80}}
  pipeline.fence_proxy_async
  func.return
}
