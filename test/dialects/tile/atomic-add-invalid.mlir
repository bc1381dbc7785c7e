// RUN: tile-opt %s --split-input-file --verify-diagnostics

// What tile.atomic_add's verifier rejects.

func.func @destination_on_chip() {
  %f = memref.alloc() : memref<32x32xf32, "fragment">
  %s = memref.alloc() : memref<32x32xf32, "shared">
  // expected-error @+1 {{dst may not live in shared memory (legal: global, gm)}}
  tile.atomic_add<32x32> %f -> %s : memref<32x32xf32, "fragment"> -> memref<32x32xf32, "shared">
  func.return
}

// -----

func.func @source_in_global_memory(%A: memref<64x64xf32>, %C: memref<64x64xf32>) {
  // expected-error @+1 {{src may not live in global memory}}
  tile.atomic_add<32x32> %A -> %C : memref<64x64xf32> -> memref<64x64xf32>
  func.return
}

// -----

func.func @element_types_differ(%C: memref<64x64xf32>) {
  %f = memref.alloc() : memref<32x32xf16, "fragment">
  // expected-error @+1 {{source and destination element types differ (f16 vs f32); use tile.cast to convert}}
  tile.atomic_add<32x32> %f -> %C : memref<32x32xf16, "fragment"> -> memref<64x64xf32>
  func.return
}

// -----

func.func @no_atomic_add_of_bf16(%C: memref<64x64xbf16>) {
  %f = memref.alloc() : memref<32x32xbf16, "fragment">
  // expected-error @+1 {{atomic add is defined for f32, f16 and i32, not bf16}}
  tile.atomic_add<32x32> %f -> %C : memref<32x32xbf16, "fragment"> -> memref<64x64xbf16>
  func.return
}

// -----

func.func @no_atomic_add_of_i8(%C: memref<64x64xi8>) {
  %f = memref.alloc() : memref<32x32xi8, "local">
  // expected-error @+1 {{atomic add is defined for f32, f16 and i32, not i8}}
  tile.atomic_add<32x32> %f -> %C : memref<32x32xi8, "local"> -> memref<64x64xi8>
  func.return
}

// -----

// As for tile.copy, a global region may reach past the array, not lie wholly outside.
func.func @wholly_outside(%C: memref<64x64xf32>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %f = memref.alloc() : memref<32x32xf32, "fragment">
  // expected-error @+1 {{dst region [64, 96) lies entirely outside dimension 0 of size 64}}
  tile.atomic_add<32x32> %f -> %C[%c64, %c0] : memref<32x32xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

// -----

func.func @source_too_small(%C: memref<64x64xf32>) {
  %f = memref.alloc() : memref<16x32xf32, "fragment">
  // expected-error @+1 {{src region [0, 32) is out of bounds in dimension 0 of size 16}}
  tile.atomic_add<32x32> %f -> %C : memref<16x32xf32, "fragment"> -> memref<64x64xf32>
  func.return
}

// -----

func.func @missing_arrow(%C: memref<64x64xf32>) {
  %f = memref.alloc() : memref<32x32xf32, "fragment">
  // expected-error @+1 {{Expected '->'}}
  tile.atomic_add<32x32> %f %C : memref<32x32xf32, "fragment"> -> memref<64x64xf32>
  func.return
}
