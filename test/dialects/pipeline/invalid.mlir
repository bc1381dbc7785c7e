// RUN: tile-opt %s --split-input-file --verify-diagnostics

func.func @nested(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{nested pipelined loops are not supported}}
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 {
    pipeline.for %j = %c0 to %n step %c1 num_stages = 2 {
    }
  }
  func.return
}

// -----

func.func @negative_num_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{num_stages must be >= 0, got -1}}
  pipeline.for %i = %c0 to %n step %c1 num_stages = -1 {
  }
  func.return
}

// -----

func.func @stage_without_order(%A: memref<64x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-error @+1 {{'stage' and 'order' must be given together}}
  pipeline.for %i = %c0 to %n step %c1 stage = [0] {
    tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

func.func @negative_stage(%A: memref<64x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-error @+1 {{stages must be non-negative, got [-1]}}
  pipeline.for %i = %c0 to %n step %c1 stage = [-1] order = [0] {
    tile.copy<64x64> %A -> %s : memref<64x64xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

// The scalar index math takes no slot: one statement, two entries.
func.func @array_length(%A: memref<1024x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-error @+1 {{'stage' has 2 entries but the body has 1 side-effecting statements (pure scalar ops take no slot)}}
  pipeline.for %i = %c0 to %n step %c1 stage = [0, 1] order = [0, 1] {
    %m = arith.muli %i, %c64 : index
    tile.copy<64x64> %A[%m, %c0] -> %s : memref<1024x64xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

func.func @partial_annotation(%A: memref<64x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  %f = memref.alloc() : memref<64x64xf16, "fragment">
  // expected-error @+1 {{1 of 2 statements carry pipeline.stage; annotate all of them or none}}
  pipeline.for %i = %c0 to %n step %c1 {
    tile.copy<64x64> %A -> %s {pipeline.stage = 0 : i64, pipeline.order = 0 : i64} : memref<64x64xf16> -> memref<64x64xf16, "shared">
    tile.copy<64x64> %s -> %f : memref<64x64xf16, "shared"> -> memref<64x64xf16, "fragment">
  }
  func.return
}

// -----

func.func @stage_attr_without_order(%A: memref<64x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-error @+1 {{'tile.copy' must carry both pipeline.stage and pipeline.order}}
  pipeline.for %i = %c0 to %n step %c1 {
    tile.copy<64x64> %A -> %s {pipeline.stage = 0 : i64} : memref<64x64xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

func.func @negative_stage_attr(%A: memref<64x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<64x64xf16, "shared">
  // expected-error @+1 {{'tile.copy' has an invalid pipeline.stage (must be an integer >= 0)}}
  pipeline.for %i = %c0 to %n step %c1 {
    tile.copy<64x64> %A -> %s {pipeline.stage = -2 : i64, pipeline.order = 0 : i64} : memref<64x64xf16> -> memref<64x64xf16, "shared">
  }
  func.return
}

// -----

func.func @zero_depth(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{depth must be >= 1, got 0}}
  pipeline.for %i = %c0 to %n step %c1 depth = 0 {
  }
  func.return
}

// -----

func.func @annotation_twice(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'num_stages' given twice}}
  pipeline.for %i = %c0 to %n step %c1 num_stages = 2 num_stages = 3 {
  }
  func.return
}

// -----

func.func @yield_outside(%n: index) {
  // expected-error @+1 {{'pipeline.yield' expects parent op 'pipeline.for'}}
  pipeline.yield
}
