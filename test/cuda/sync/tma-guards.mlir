// RUN: tile-opt %s --split-input-file --verify-diagnostics -p thread-sync | filecheck %s

// sm_90: a bulk copy issued under a guard (a pipelined prologue's `k < n`) is landed by
// a wait under a *correlated* guard, or in a loop whose trip count the conflict forces:
// thread-sync proves with Z3 that every conflicting run of the copy is followed by a
// wait on its mbarrier slot, instead of taking each scf.if as independent.  A wait
// under a guard the copy does not imply, or on another slot, lands nothing.

// The epilogue waits under the copy's own guard, before %s's bytes are rewritten.
// CHECK-LABEL: func.func @same_guard
// CHECK:           pipeline.mbarrier_arrive_expect_tx
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.if %go {
// CHECK-NEXT:      pipeline.mbarrier_wait_parity %bars[%c0], %c0
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.copy<64x64> %B -> %s
func.func @same_guard(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %n: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<2x64x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c1], arrivals = 1 : memref<2xi64, "shared">
  pipeline.barrier
  %go = arith.cmpi slt, %c0, %n : index
  scf.if %go {
    pipeline.bulk_copy<64x64> %A -> %s[%c0, %c0, %c0], %bars[%c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">, memref<2xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<2xi64, "shared">
  }
  scf.if %go {
    pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
  }
  tile.copy<64x64> %B -> %s[%c0, %c0, %c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">
  func.return
}

// -----

// The rewrite runs only when 1 < n, and then the loop between runs and its first
// iteration waits on the copy's slot.
// CHECK-LABEL: func.func @loop_runs_when_conflicting
// CHECK:           pipeline.mbarrier_arrive_expect_tx
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %k = %c1 to %n step %c1 {
// CHECK-NEXT:      pipeline.mbarrier_wait_parity %bars[%c0], %c0
// CHECK-NEXT:    }
// CHECK-NEXT:    %again = arith.cmpi slt, %c1, %n : index
// CHECK-NEXT:    scf.if %again {
// CHECK-NEXT:      tile.copy<64x64> %B -> %s
func.func @loop_runs_when_conflicting(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %n: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<2x64x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c1], arrivals = 1 : memref<2xi64, "shared">
  pipeline.barrier
  %go = arith.cmpi slt, %c0, %n : index
  scf.if %go {
    pipeline.bulk_copy<64x64> %A -> %s[%c0, %c0, %c0], %bars[%c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">, memref<2xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<2xi64, "shared">
  }
  scf.for %k = %c1 to %n step %c1 {
    pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
  }
  %again = arith.cmpi slt, %c1, %n : index
  scf.if %again {
    tile.copy<64x64> %B -> %s[%c0, %c0, %c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">
  }
  func.return
}

// -----

// The copy runs when 0 < n, the wait only when 1 < n: at n = 1 nothing lands the copy.
func.func @weaker_guard(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %n: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<2x64x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c1], arrivals = 1 : memref<2xi64, "shared">
  pipeline.barrier
  %go = arith.cmpi slt, %c0, %n : index
  scf.if %go {
    pipeline.bulk_copy<64x64> %A -> %s[%c0, %c0, %c0], %bars[%c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">, memref<2xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<2xi64, "shared">
  }
  %more = arith.cmpi slt, %c1, %n : index
  scf.if %more {
    pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
  }
  // expected-error @+1 {{'tile.copy' op touches bytes of a bulk copy that no mbarrier wait lands on every path (WAW pipeline.bulk_copy (line 89) -> tile.copy (line 97) on %s)}}
  tile.copy<64x64> %B -> %s[%c0, %c0, %c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">
  func.return
}

// -----

// The wait runs whenever the copy does, but on the other slot of the ring.
func.func @other_slot(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %n: index)
    attributes {tile.threads = 128 : i64, tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<2x64x64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_init %bars[%c1], arrivals = 1 : memref<2xi64, "shared">
  pipeline.barrier
  %go = arith.cmpi slt, %c0, %n : index
  scf.if %go {
    pipeline.bulk_copy<64x64> %A -> %s[%c0, %c0, %c0], %bars[%c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">, memref<2xi64, "shared">
    pipeline.mbarrier_arrive_expect_tx %bars[%c0], bytes = 8192 : memref<2xi64, "shared">
  }
  scf.if %go {
    pipeline.mbarrier_wait_parity %bars[%c1], %c0 : memref<2xi64, "shared">
  }
  // expected-error @+1 {{'tile.copy' op touches bytes of a bulk copy that no mbarrier wait lands on every path (WAW pipeline.bulk_copy (line 115) -> tile.copy (line 122) on %s)}}
  tile.copy<64x64> %B -> %s[%c0, %c0, %c0] : memref<64x64xf16> -> memref<2x64x64xf16, "shared">
  func.return
}
