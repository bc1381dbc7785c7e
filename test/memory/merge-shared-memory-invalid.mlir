// Buffers the arena cannot hold, and malformed placement requests: one error each.

// RUN: tile-opt %s --split-input-file --verify-diagnostics -p merge-shared-memory

func.func @dynamic_size(%G: memref<1024xf16>, %n: index) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{on-chip buffer buf of type memref<?xf16, "shared"> has a dynamic size; the arena needs static sizes (allocate the largest tile instead)}}
  %buf = memref.alloc(%n) : memref<?xf16, "shared">
  tile.copy<64> %G[%c0] -> %buf[%c0] : memref<1024xf16> -> memref<?xf16, "shared">
  func.return
}

// -----

func.func @strided_layout(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{on-chip buffer buf has a non-identity layout strided<[1], offset: 8>; only identity layouts can be views of the arena}}
  %buf = memref.alloc() : memref<64xf16, strided<[1], offset: 8>, "shared">
  tile.copy<64> %G[%c0] -> %buf : memref<1024xf16> -> memref<64xf16, strided<[1], offset: 8>, "shared">
  func.return
}

// -----

func.func @alignment_not_power_of_two(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'arena.alignment' must be a power of two, got 48}}
  %buf = memref.alloc() {arena.alignment = 48 : i64} : memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %buf : memref<1024xf16> -> memref<64xf16, "shared">
  func.return
}

// -----

func.func @unknown_swizzle(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'arena.swizzle' must be a swizzle width of 32, 64 or 128 bytes, got 16}}
  %buf = memref.alloc() {arena.swizzle = 16 : i64} : memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %buf : memref<1024xf16> -> memref<64xf16, "shared">
  func.return
}

// -----

func.func @alignment_not_integer(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'arena.alignment' must be an integer attribute, got "wide"}}
  %buf = memref.alloc() {arena.alignment = "wide"} : memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %buf : memref<1024xf16> -> memref<64xf16, "shared">
  func.return
}

// -----

func.func @versions_not_leading_dim(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pipeline.versions' is 3 but the leading dimension of memref<2x64xf16, "shared"> is not}}
  %buf = memref.alloc() {pipeline.versions = 3 : i64} : memref<2x64xf16, "shared">
  tile.copy<64> %G[%c0] -> %buf[%c0, %c0] : memref<1024xf16> -> memref<2x64xf16, "shared">
  func.return
}

// -----

// A buffer allocated after the arena was packed cannot join it.
func.func @allocated_after_packing(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %shared_arena = memref.alloc() {arena.layout = {}} : memref<128xi8, "shared">
  %a = memref.view %shared_arena[%c0][] : memref<128xi8, "shared"> to memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %a : memref<1024xf16> -> memref<64xf16, "shared">
  // expected-error @+1 {{shared buffer late is allocated next to an arena that merge-shared-memory already packed; run the pass once, after every allocation exists}}
  %late = memref.alloc() : memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %late : memref<1024xf16> -> memref<64xf16, "shared">
  func.return
}
