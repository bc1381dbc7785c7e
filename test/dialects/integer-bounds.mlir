// Integers in the custom syntax of the tile, pipeline and ascend dialects are stored
// as 64-bit signed properties: a larger one is a located error where it is written
// (it was an internal ValueError when the op was built).  Pipeline depths are bounded
// by tilepipe's stated limit (MAX_PIPELINE_DEPTH = 64), not by the i64 range: the
// schedule unrolls depth - 1 iterations.
// RUN: tile-opt %s --split-input-file --verify-diagnostics

func.func @tile_shape(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<256xf32, "ub">
  // expected-error @+1 {{tile shape 18446744073709551616 has a size that does not fit in a 64-bit signed integer}}
  tile.copy<18446744073709551616> %s -> %x[%c0] : memref<256xf32, "ub"> -> memref<?xf32>
  func.return
}

// -----

func.func @tile_shape_second_dim(%x: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tile shape 16x18446744073709551616 has a size that does not fit in a 64-bit signed integer}}
  tile.copy<16x18446744073709551616> %x[%c0, %c0] -> %x[%c0, %c0] : memref<?x?xf32> -> memref<?x?xf32>
  func.return
}

// -----

func.func @axis(%x: memref<64x32xf32, "fragment">, %r: memref<64xf32, "fragment">) {
  // expected-error @+1 {{axis 18446744073709551616 does not fit in a 64-bit signed integer}}
  tile.reduce<64x32> sum %x -> %r axis 18446744073709551616 : memref<64x32xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @num_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{num_stages 18446744073709551616 does not fit in a 64-bit signed integer}}
  pipeline.for %i = %c0 to %n step %c1 num_stages = 18446744073709551616 {
  }
  func.return
}

// -----

func.func @stage_array(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{stage value 18446744073709551616 does not fit in a 64-bit signed integer}}
  pipeline.for %i = %c0 to %n step %c1 stage = [0, 18446744073709551616] order = [0, 1] {
  }
  func.return
}

// -----

func.func @order_array(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{order value -18446744073709551616 does not fit in a 64-bit signed integer}}
  pipeline.for %i = %c0 to %n step %c1 stage = [0, 1] order = [0, -18446744073709551616] {
  }
  func.return
}

// -----

func.func @depth(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{depth 18446744073709551616 does not fit in a 64-bit signed integer}}
  pipeline.for %i = %c0 to %n step %c1 depth = 18446744073709551616 {
  }
  func.return
}

// -----

func.func @num_stages_over_limit(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'pipeline.for' op num_stages 9223372036854775807 exceeds tilepipe's limit of 64 stages}}
  pipeline.for %i = %c0 to %n step %c1 num_stages = 9223372036854775807 {
  }
  func.return
}

// -----

func.func @num_stages_at_limit(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pipeline.for %i = %c0 to %n step %c1 num_stages = 64 {
  }
  // expected-error @+1 {{'pipeline.for' op depth 65 exceeds tilepipe's limit of 64 stages}}
  pipeline.for %i = %c0 to %n step %c1 depth = 65 {
  }
  func.return
}

// -----

func.func @stage_over_limit(%x: memref<1024xf32>, %z: memref<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<16xf32, "shared">
  // expected-error @+1 {{'pipeline.for' op stage 4611686018427387904 exceeds tilepipe's limit of 64 stages (0 to 63)}}
  pipeline.for %i = %c0 to %n step %c1 stage = [0, 4611686018427387904] order = [0, 1] {
    tile.copy<16> %x -> %s : memref<1024xf32> -> memref<16xf32, "shared">
    tile.copy<16> %s -> %z : memref<16xf32, "shared"> -> memref<1024xf32>
  }
  func.return
}

// -----

func.func @op_stage_over_limit(%x: memref<1024xf32>, %z: memref<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = memref.alloc() : memref<16xf32, "shared">
  // expected-error @+1 {{'pipeline.for' op 'tile.copy' has pipeline.stage 64, over tilepipe's limit of 64 stages (0 to 63)}}
  pipeline.for %i = %c0 to %n step %c1 {
    tile.copy<16> %x -> %s {pipeline.stage = 0 : i64, pipeline.order = 0 : i64} : memref<1024xf32> -> memref<16xf32, "shared">
    tile.copy<16> %s -> %z {pipeline.stage = 64 : i64, pipeline.order = 1 : i64} : memref<16xf32, "shared"> -> memref<1024xf32>
  }
  func.return
}

// -----

func.func @wait_group() {
  // expected-error @+1 {{pending group count 18446744073709551616 does not fit in a 64-bit signed integer}}
  pipeline.wait_group 18446744073709551616
  func.return
}

// -----

func.func @barrier_threads() {
  // expected-error @+1 {{threads 18446744073709551616 does not fit in a 64-bit signed integer}}
  pipeline.barrier id = 1, threads = 18446744073709551616
  func.return
}

// -----

func.func @flag_id() {
  // expected-error @+1 {{id 18446744073709551616 does not fit in a 64-bit signed integer}}
  ascend.set_flag[MTE2, V] 18446744073709551616
  func.return
}

// -----

func.func @cross_core_mode() {
  // expected-error @+1 {{mode 18446744073709551616 does not fit in a 64-bit signed integer}}
  ascend.cross_core_set_flag[18446744073709551616, FIX] 15
  func.return
}
