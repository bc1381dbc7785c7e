// Shapes of the modulo schedule: dynamic trip counts, non-unit steps, trip counts
// below the depth, tightening, layouts, degenerate pipelines, values across guards.
//
// RUN: tile-opt %s --split-input-file -p inject-software-pipeline | filecheck %s


// A dynamic trip count: the prologue slot is guarded by the bound check on its
// iteration, the steady state is unguarded, the epilogue slot runs only when the
// prologue did not already run it (iteration 0 exists).
// CHECK-LABEL: func.func @dynamic_trip_count
// CHECK:       %[[S:.*]] = memref.alloc() : memref<2x64x64xf32, "shared">
// CHECK:       %[[G0:.*]] = arith.cmpi slt, %c0, %[[N:.*]] : index
// CHECK-NEXT:  scf.if %[[G0]] {
// CHECK-NEXT:    tile.copy<64x64> %{{.*}}[%c0, %c0] -> %[[S]][%c0, %c0, %c0]
// CHECK-NEXT:  }
// CHECK:       scf.for %[[K:.*]] = %c1 to %[[N]] step %c1 {
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remsi %[[K]], %c2
// CHECK-NEXT:    tile.copy<64x64> %{{.*}}[%[[K]], %c0] -> %[[S]][%[[SLOT]], %c0, %c0]
// CHECK-NEXT:    %[[PREV:.*]] = arith.subi %[[K]], %c1
// CHECK-NEXT:    %[[PSLOT:.*]] = arith.remsi %[[PREV]], %c2
// CHECK-NEXT:    tile.copy<64x64> %[[S]][%[[PSLOT]], %c0, %c0] -> %{{.*}}[%[[PREV]], %c0]
// CHECK-NEXT:  }
// CHECK-NEXT:  %[[TRIPS:.*]] = arith.maxsi %[[N]], %c0
// CHECK-NEXT:  scf.if %[[G0]] {
// CHECK-NEXT:    %[[LAST:.*]] = arith.subi %[[TRIPS]], %c1
// CHECK-NEXT:    %[[LSLOT:.*]] = arith.remsi %[[LAST]], %c2
// CHECK-NEXT:    tile.copy<64x64> %[[S]][%[[LSLOT]], %c0, %c0] -> %{{.*}}[%[[LAST]], %c0]
// CHECK-NEXT:  }
func.func @dynamic_trip_count(%A: memref<256x64xf32>, %C: memref<256x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 1] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// k = 3, 7, 11, 15, 19: the slot is ((k - lb) / step) mod versions, not k mod versions.
// CHECK-LABEL: func.func @step_and_lower_bound
// CHECK:       memref.alloc() : memref<3x64x64xf32, "shared">
// CHECK:       tile.copy<64x64> %A[%c3, %c0] -> %S[%c0, %c0, %c0]
// CHECK:       tile.copy<64x64> %A[%c7, %c0] -> %S[%c1, %c0, %c0]
// CHECK:       scf.for %[[K:.*]] = %c11 to %c20 step %c4 {
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[K]], %c3
// CHECK-NEXT:    %[[I:.*]] = arith.divsi %[[D]], %c4
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remsi %[[I]], %c3
// CHECK-NEXT:    tile.copy<64x64> %A[%[[K]], %c0] -> %S[%[[SLOT]], %c0, %c0]
// CHECK-NEXT:    %[[SKEWED:.*]] = arith.subi %[[K]], %c8
// CHECK-NEXT:    %[[D2:.*]] = arith.subi %[[SKEWED]], %c3
// CHECK-NEXT:    %[[I2:.*]] = arith.divsi %[[D2]], %c4
// CHECK-NEXT:    %[[SLOT2:.*]] = arith.remsi %[[I2]], %c3
// CHECK-NEXT:    tile.copy<64x64> %S[%[[SLOT2]], %c0, %c0] -> %C[%[[SKEWED]], %c0]
// CHECK-NEXT:  }
// CHECK-NEXT:  %c15 = arith.constant 15 : index
// CHECK-NEXT:  tile.copy<64x64> %S[%c0, %c0, %c0] -> %C[%c15, %c0]
// CHECK-NEXT:  %c19 = arith.constant 19 : index
// CHECK-NEXT:  tile.copy<64x64> %S[%c1, %c0, %c0] -> %C[%c19, %c0]
func.func @step_and_lower_bound(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c20 = arith.constant 20 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c3 to %c20 step %c4 stage = [0, 2] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// One iteration, three time slots: static guards fold, each statement runs once.
// CHECK-LABEL: func.func @fewer_iterations_than_stages
// CHECK:       tile.copy<64x64> %A[%c0, %c0] -> %S[%c0, %c0, %c0]
// CHECK-NEXT:  tile.copy<64x64> %S[%c0, %c0, %c0] -> %C[%c0, %c0]
// CHECK-NEXT:  func.return
func.func @fewer_iterations_than_stages(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c1 step %c1 stage = [0, 2] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @zero_iterations
// CHECK-NOT:   tile.copy
// CHECK-NOT:   scf.for
// CHECK:       func.return
func.func @zero_iterations(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c0 step %c1 stage = [0, 2] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// Written in stage 0, read in stage 3, but the reader is ordered first: no
// writer/reader pair needs the fourth copy, so 3 versions (TileLang's >= 2 rule).
// CHECK-LABEL: func.func @tightened_reader_first
// CHECK:       memref.alloc() : memref<3x64x64xf32, "shared">
// CHECK:       scf.for %[[K:.*]] = %c3 to %c8 step %c1 {
// CHECK-NEXT:    %[[OLD:.*]] = arith.subi %[[K]], %c3
// CHECK-NEXT:    %[[OSLOT:.*]] = arith.remsi %[[OLD]], %c3
// CHECK-NEXT:    tile.copy<64x64> %S[%[[OSLOT]], %c0, %c0] -> %C[%[[OLD]], %c0]
// CHECK-NEXT:    %[[SLOT:.*]] = arith.remsi %[[K]], %c3
// CHECK-NEXT:    tile.copy<64x64> %A[%[[K]], %c0] -> %S[%[[SLOT]], %c0, %c0]
// CHECK-NEXT:  }
func.func @tightened_reader_first(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 stage = [0, 3] order = [1, 0] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// An explicit strided layout gains the stride of a whole version.
// CHECK-LABEL: func.func @strided_layout
// CHECK:       memref.alloc() : memref<2x64x64xf32, strided<[4608, 72, 1]>, "shared">
func.func @strided_layout(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %S = memref.alloc() : memref<64x64xf32, strided<[72, 1]>, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 stage = [0, 1] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, strided<[72, 1]>, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, strided<[72, 1]>, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// Every statement in one stage: a plain loop, nothing peeled, nothing versioned.
// CHECK-LABEL: func.func @single_stage
// CHECK:       memref.alloc() : memref<64x64xf32, "shared">
// CHECK-NEXT:  scf.for %[[K:.*]] = %c0 to %c8 step %c1 {
// CHECK-NEXT:    tile.copy<64x64> %A[%[[K]], %c0] -> %S :
// CHECK-NEXT:    tile.copy<64x64> %S -> %C[%[[K]], %c0] :
// CHECK-NEXT:  }
// CHECK-NEXT:  func.return
func.func @single_stage(%A: memref<256x64xf32>, %C: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %c8 step %c1 stage = [1, 1] order = [0, 1] {
    tile.copy<64x64> %A[%k, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// A scalar load in stage 0 feeds a copy in stage 0 that the prologue emits in a
// separate guarded group: the value leaves its scf.if as a result.
// CHECK-LABEL: func.func @value_escapes_guard
// CHECK:       %[[G1:.*]] = arith.cmpi slt, %c1, %{{.*}} : index
// CHECK-NEXT:  %[[ID:.*]] = scf.if %[[G1]] -> (index) {
// CHECK-NEXT:    %[[LOADED:.*]] = memref.load %ids[%c1]
// CHECK-NEXT:    scf.yield %[[LOADED]] : index
// CHECK-NEXT:  } else {
// CHECK:       scf.if %[[G1]] {
// CHECK-NEXT:    tile.copy<64x64> %A[%[[ID]], %c0] -> %S[%c1, %c0, %c0]
func.func @value_escapes_guard(%ids: memref<8xindex>, %A: memref<256x64xf32>, %C: memref<256x64xf32>, %D: memref<256x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %S = memref.alloc() : memref<64x64xf32, "shared">
  pipeline.for %k = %c0 to %n step %c1 stage = [0, 0, 1, 2] order = [0, 2, 1, 3] {
    %id = memref.load %ids[%k] : memref<8xindex>
    tile.copy<64x64> %A[%id, %c0] -> %S : memref<256x64xf32> -> memref<64x64xf32, "shared">
    tile.copy<64x64> %S -> %C[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
    tile.copy<64x64> %S -> %D[%k, %c0] : memref<64x64xf32, "shared"> -> memref<256x64xf32>
  }
  func.return
}

// -----

// A body with no statements still becomes a plain loop.
// CHECK-LABEL: func.func @empty_body
// CHECK:       scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NEXT:  }
func.func @empty_body() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pipeline.for %k = %c0 to %c8 step %c1 depth = 2 {
    %unused = arith.addi %k, %c1 : index
  }
  func.return
}
