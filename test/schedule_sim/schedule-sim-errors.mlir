// A kernel the simulator cannot run is a located error, not a traceback.
// RUN: tile-opt %s -p schedule-sim --split-input-file --verify-diagnostics

func.func @uninitialized(%G: memref<16x16xf32>)
    attributes {tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  // expected-error @+1 {{uses mbarrier %bars[0], which was never initialized}}
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  func.return
}

// -----

func.func @never_completes(%G: memref<16x16xf32>)
    attributes {tile.threads = 32 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %bars = memref.alloc() : memref<1xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<1xi64, "shared">
  pipeline.barrier
  // expected-error @+1 {{which can never complete}}
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<1xi64, "shared">
  func.return
}
