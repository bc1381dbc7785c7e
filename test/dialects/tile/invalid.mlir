// RUN: tile-opt %s --split-input-file --verify-diagnostics

// On-chip buffers are strict: a region past a shared buffer is an error.
func.func @tile_out_of_bounds(%A: memref<64x64xf16>) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{dst region [0, 64) is out of bounds in dimension 0 of size 32}}
  tile.copy<64x32> %A -> %s : memref<64x64xf16> -> memref<32x32xf16, "shared">
  func.return
}

// -----

// A global region may reach past the array (boundary tiles), but not lie wholly outside.
func.func @constant_offset_out_of_bounds(%A: memref<64x64xf16>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{src region [64, 96) lies entirely outside dimension 0 of size 64}}
  tile.copy<32x32> %A[%c64, %c0] -> %s : memref<64x64xf16> -> memref<32x32xf16, "shared">
  func.return
}

// -----

func.func @copy_element_types(%A: memref<64x64xf16>) {
  %s = memref.alloc() : memref<32x32xf32, "shared">
  // expected-error @+1 {{source and destination element types differ (f16 vs f32); use tile.cast to convert}}
  tile.copy<32x32> %A -> %s : memref<64x64xf16> -> memref<32x32xf32, "shared">
  func.return
}

// -----

func.func @wrong_offset_count(%A: memref<64x64xf16>, %i: index) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{src has 1 offsets for a rank-2 buffer}}
  tile.copy<32x32> %A[%i] -> %s : memref<64x64xf16> -> memref<32x32xf16, "shared">
  func.return
}

// -----

func.func @rank_too_small(%A: memref<64xf16>) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{src of rank 1 cannot hold a 32x32 tile}}
  tile.copy<32x32> %A -> %s : memref<64xf16> -> memref<32x32xf16, "shared">
  func.return
}

// -----

func.func @unknown_space(%A: memref<64x64xf16, "texture">) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{src: unknown memory space "texture"}}
  tile.copy<32x32> %A -> %s : memref<64x64xf16, "texture"> -> memref<32x32xf16, "shared">
  func.return
}

// -----

func.func @zero_tile(%A: memref<64x64xf16>) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{tile shape 0x32 must be positive}}
  tile.copy<0x32> %A -> %s : memref<64x64xf16> -> memref<32x32xf16, "shared">
  func.return
}

// -----

// Found by the malformed-input fuzzer: an empty shape crashed the interpreter.
func.func @empty_tile(%A: memref<64x64xf16>) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{tile shape must have at least one dimension}}
  tile.copy<> %A -> %s : memref<64x64xf16> -> memref<32x32xf16, "shared">
  func.return
}

// -----

func.func @gemm_from_global(%A: memref<128x64xf16>, %B: memref<64x128xf16>) {
  %c = memref.alloc() : memref<128x128xf32, "fragment">
  // expected-error @+1 {{a may not live in global memory (legal: fragment, l0a, l0b, shared)}}
  tile.gemm<128x128x64> %A, %B -> %c : memref<128x64xf16>, memref<64x128xf16> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

func.func @gemm_accumulator_in_shared() {
  %a = memref.alloc() : memref<128x64xf16, "shared">
  %b = memref.alloc() : memref<64x128xf16, "shared">
  %c = memref.alloc() : memref<128x128xf32, "shared">
  // expected-error @+1 {{c may not live in shared memory (legal: fragment, l0c)}}
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "shared">
  func.return
}

// -----

func.func @gemm_rank() {
  %a = memref.alloc() : memref<128x64xf16, "shared">
  %b = memref.alloc() : memref<64x128xf16, "shared">
  %c = memref.alloc() : memref<128x128xf32, "fragment">
  // expected-error @+1 {{gemm tile shape must be MxNxK, got 128x128}}
  tile.gemm<128x128> %a, %b -> %c : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

func.func @gemm_shape_mismatch() {
  %a = memref.alloc() : memref<128x32xf16, "shared">
  %b = memref.alloc() : memref<64x128xf16, "shared">
  %c = memref.alloc() : memref<128x128xf32, "fragment">
  // expected-error @+1 {{a region [0, 64) is out of bounds in dimension 1 of size 32}}
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x32xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

func.func @gemm_mixed_inputs() {
  %a = memref.alloc() : memref<128x64xf16, "shared">
  %b = memref.alloc() : memref<64x128xbf16, "shared">
  %c = memref.alloc() : memref<128x128xf32, "fragment">
  // expected-error @+1 {{A and B element types differ (f16 vs bf16)}}
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "shared">, memref<64x128xbf16, "shared"> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

func.func @gemm_integer_inputs() {
  %a = memref.alloc() : memref<128x64xi8, "shared">
  %b = memref.alloc() : memref<64x128xi8, "shared">
  %c = memref.alloc() : memref<128x128xf32, "fragment">
  // expected-error @+1 {{gemm inputs must be f16, bf16 or f32, got i8}}
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xi8, "shared">, memref<64x128xi8, "shared"> -> memref<128x128xf32, "fragment">
  func.return
}

// -----

func.func @gemm_f16_accumulator() {
  %a = memref.alloc() : memref<128x64xf16, "shared">
  %b = memref.alloc() : memref<64x128xf16, "shared">
  %c = memref.alloc() : memref<128x128xf16, "fragment">
  // expected-error @+1 {{gemm accumulates in f32, got f16}}
  tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf16, "fragment">
  func.return
}

// -----

func.func @fill_type() {
  %one = arith.constant 1.000000e+00 : f16
  %x = memref.alloc() : memref<64x64xf32, "fragment">
  // expected-error @+1 {{value of type f16 does not match the element type f32}}
  tile.fill<64x64> %one -> %x : f16 -> memref<64x64xf32, "fragment">
  func.return
}

// -----

func.func @fill_global(%x: memref<64x64xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  // expected-error @+1 {{dst may not live in global memory}}
  tile.fill<64x64> %one -> %x : f32 -> memref<64x64xf32>
  func.return
}

// -----

func.func @elementwise_types() {
  %x = memref.alloc() : memref<64x64xf32, "fragment">
  %y = memref.alloc() : memref<64x64xf16, "fragment">
  // expected-error @+1 {{operands must have one element type, got f16, f32}}
  tile.add<64x64> %x, %y -> %x : memref<64x64xf32, "fragment">, memref<64x64xf16, "fragment"> -> memref<64x64xf32, "fragment">
  func.return
}

// -----

func.func @exp_of_integers() {
  %x = memref.alloc() : memref<64xi32, "fragment">
  // expected-error @+1 {{tile.exp needs a float element type, got i32}}
  tile.exp<64> %x -> %x : memref<64xi32, "fragment"> -> memref<64xi32, "fragment">
  func.return
}

// -----

func.func @reduce_axis() {
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  %r = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{reduction axis 2 is out of range for a 64x32 tile}}
  tile.reduce<64x32> sum %x -> %r axis 2 : memref<64x32xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @reduce_kind() {
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  %r = memref.alloc() : memref<64xf32, "fragment">
  // expected-error @+1 {{unknown reduction 'prod' (expected sum or max)}}
  tile.reduce<64x32> prod %x -> %r axis 1 : memref<64x32xf32, "fragment"> -> memref<64xf32, "fragment">
  func.return
}

// -----

func.func @reduce_types() {
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  %r = memref.alloc() : memref<64xf16, "fragment">
  // expected-error @+1 {{source and destination element types differ}}
  tile.reduce<64x32> sum %x -> %r axis 1 : memref<64x32xf32, "fragment"> -> memref<64xf16, "fragment">
  func.return
}

// -----

func.func @block_id_dimension() {
  // expected-error @+1 {{dimension must be x, y or z, got 'w'}}
  %b = "tile.block_id"() <{dimension = "w"}> : () -> index
  func.return
}

// -----

func.func @broadcast_axis() {
  %v = memref.alloc() : memref<64xf32, "shared">
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  // expected-error @+1 {{broadcast axis 2 is out of range for a 64x32 tile}}
  tile.broadcast<64x32> %v -> %x axis 2 : memref<64xf32, "shared"> -> memref<64x32xf32, "fragment">
  func.return
}

// -----

func.func @broadcast_types() {
  %v = memref.alloc() : memref<64xf16, "shared">
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  // expected-error @+1 {{source and destination element types differ}}
  tile.broadcast<64x32> %v -> %x axis 1 : memref<64xf16, "shared"> -> memref<64x32xf32, "fragment">
  func.return
}

// -----

func.func @broadcast_source_shape() {
  %v = memref.alloc() : memref<32xf32, "shared">
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  // expected-error @+1 {{src region [0, 64) is out of bounds in dimension 0 of size 32}}
  tile.broadcast<64x32> %v -> %x axis 1 : memref<32xf32, "shared"> -> memref<64x32xf32, "fragment">
  func.return
}

// -----

func.func @broadcast_from_global(%v: memref<64xf32>) {
  %x = memref.alloc() : memref<64x32xf32, "fragment">
  // expected-error @+1 {{src may not live in global memory}}
  tile.broadcast<64x32> %v -> %x axis 1 : memref<64xf32> -> memref<64x32xf32, "fragment">
  func.return
}

// -----

func.func @div_integers() {
  %x = memref.alloc() : memref<64x32xi32, "fragment">
  // expected-error @+1 {{tile.div needs a float element type, got i32}}
  tile.div<64x32> %x, %x -> %x : memref<64x32xi32, "fragment">, memref<64x32xi32, "fragment"> -> memref<64x32xi32, "fragment">
  func.return
}

// -----

func.func @block_id_parse() {
  // expected-error @+1 {{expected x, y or z}}
  %b = tile.block_id w
  func.return
}

// -----

func.func @signature_mismatch(%A: memref<64x64xf16>) {
  %s = memref.alloc() : memref<32x32xf16, "shared">
  // expected-error @+1 {{type}}
  tile.copy<32x32> %A -> %s : memref<64x64xf32> -> memref<32x32xf16, "shared">
  func.return
}

// -----

func.func @reduce_i1() {
  %x = memref.alloc() : memref<64x32xi1, "fragment">
  %r = memref.alloc() : memref<64xi1, "fragment">
  // expected-error @+1 {{tile.reduce reduces float or integer tiles of 8 to 64 bits, not i1}}
  tile.reduce<64x32> max %x -> %r axis 1 : memref<64x32xi1, "fragment"> -> memref<64xi1, "fragment">
  func.return
}
