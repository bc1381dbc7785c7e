// lower-to-nvvm rejects what it cannot lower with one located error each.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p lower-to-nvvm

// expected-error @+1 {{lower-to-nvvm needs a CUDA target, got 'ascend910b'}}
func.func @ascend_kernel() attributes {tile.target = "ascend910b"} {
  func.return
}

// -----

// expected-error @+1 {{needs 200704 bytes of shared memory, sm_80 has 166912 per block}}
func.func @over_budget() attributes {tile.target = "sm_80"} {
  %big = memref.alloc() : memref<100352xf16, "shared">
  func.return
}

// -----

func.func @bulk_copy_on_sm80(%A: memref<1024x1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x64xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{bulk (TMA) copies need sm_90; target sm_80 has no TMA}}
  pipeline.bulk_copy<64x64> %A[%c0, %c0] -> %A_s, %bars[%c0] : memref<1024x1024xf16> -> memref<64x64xf16, "shared">, memref<1xi64, "shared">
  func.return
}

// -----

// A register-fragment reduction that warp shuffles cannot do is staged through a
// shared-memory scratch after the kernel's buffers: 160 KiB of buffers fit sm_80's
// 163 KiB, with the 16 KiB scratch they do not.
func.func @reduce_scratch_over_budget() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %s = memref.alloc() : memref<40960xf32, "shared">
  %f = memref.alloc() : memref<64x64xf32, "fragment">
  %m = memref.alloc() : memref<64xf32, "shared">
  // expected-error @+1 {{needs 180480 bytes of shared memory with the 16384-byte shared-memory scratch of this register-fragment reduction, sm_80 has 166912 per block}}
  tile.reduce<64x64> sum %f -> %m axis 0 : memref<64x64xf32, "fragment"> -> memref<64xf32, "shared">
  func.return
}

// -----

func.func @accumulator_not_the_tile() attributes {tile.threads = 128 : i64, tile.target = "sm_80"} {
  %A_s = memref.alloc() : memref<64x32xf16, "shared">
  %B_s = memref.alloc() : memref<32x64xf16, "shared">
  %C_f = memref.alloc() : memref<128x64xf32, "fragment">
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a tensor-core accumulator must be exactly the 64x64 tile, got memref<128x64xf32, "fragment">}}
  tile.gemm<64x64x32> %A_s, %B_s -> %C_f[%c0, %c0] : memref<64x32xf16, "shared">, memref<32x64xf16, "shared"> -> memref<128x64xf32, "fragment">
  func.return
}

// -----

func.func @expect_tx_on_sm80() attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{mbarrier transaction counts need sm_90 (TMA); target sm_80 has no mbarrier.expect_tx}}
  pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 16384 : memref<1xi64, "shared">
  func.return
}

// -----

func.func @bulk_copy_unaligned_rows(%A: memref<1024x1024xf16>) attributes {tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %A_s = memref.alloc() : memref<64x4xf16, "shared">
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{bulk copies move 16-byte aligned rows; cannot prove that for rows of 4 x 2 bytes at these offsets}}
  pipeline.bulk_copy<64x4> %A[%c0, %c0] -> %A_s, %bars[%c0] : memref<1024x1024xf16> -> memref<64x4xf16, "shared">, memref<1xi64, "shared">
  func.return
}

// -----

// Without host launchers the kernel leaves the host module: a host call of it would
// dangle.
func.func @host(%A: memref<64xf32>) {
  // expected-error @+1 {{'func.call' op refers to kernel @k, which lower-to-nvvm moves into a gpu.module; use lower-to-nvvm{host-launch=true} (tilepipe compile --host-launch) to leave a host launcher of that name}}
  func.call @k(%A) : (memref<64xf32>) -> ()
  func.return
}

func.func @k(%A: memref<64xf32>) attributes {tile.target = "sm_80", tile.threads = 32 : i64} {
  func.return
}
