// Alignment: 16 bytes by default, stricter where a buffer asks (arena.alignment,
// arena.swizzle, the alloc's own alignment), the space's default on Ascend; the gap a
// strictly aligned bump leaves is returned to the free list for later small buffers.

// RUN: tile-opt %s --split-input-file -p merge-shared-memory | filecheck %s

// The 1024-byte-aligned buffer is bumped to 1024; the 64-byte buffer born after it
// fits the gap [48, 1024) and lands at 48 (best fit), not at the top.
// CHECK-LABEL: func.func @alignment_gap_reused
// CHECK:         memref.alloc() {alignment = 1024 : i64, arena.layout = {{.*}} : memref<2048xi8, "shared">
// CHECK:         %a_offset = arith.constant 0 : index
// CHECK:         %big_offset = arith.constant 1024 : index
// CHECK:         %small_offset = arith.constant 48 : index
func.func @alignment_gap_reused(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<24xf16, "shared">
  %big = memref.alloc() {arena.alignment = 1024 : i64} : memref<512xf16, "shared">
  %small = memref.alloc() : memref<32xf16, "shared">
  tile.copy<24> %G[%c0] -> %a : memref<1024xf16> -> memref<24xf16, "shared">
  tile.copy<512> %G[%c0] -> %big : memref<1024xf16> -> memref<512xf16, "shared">
  tile.copy<32> %G[%c0] -> %small : memref<1024xf16> -> memref<32xf16, "shared">
  tile.copy<24> %a -> %G[%c0] : memref<24xf16, "shared"> -> memref<1024xf16>
  tile.copy<512> %big -> %G[%c0] : memref<512xf16, "shared"> -> memref<1024xf16>
  tile.copy<32> %small -> %G[%c0] : memref<32xf16, "shared"> -> memref<1024xf16>
  func.return
}

// -----

// A 128-byte swizzle needs 1024-byte alignment, a 64-byte swizzle 512, a 32-byte one
// 256; the alloc's own alignment counts too.  Only s128 is bumped (to 1024); the
// others are carved from the gap [48, 1024) it left, best fit and lowest on ties.
// CHECK-LABEL: func.func @swizzle_alignment
// CHECK:         buffers = [{name = "a", offset = 0 : i64, bytes = 48 : i64, versions = 1 : i64, alignment = 16 : i64
// CHECK-SAME:      {name = "s128", offset = 1024 : i64, bytes = 64 : i64, versions = 1 : i64, alignment = 1024 : i64
// CHECK-SAME:      {name = "s64", offset = 512 : i64, bytes = 64 : i64, versions = 1 : i64, alignment = 512 : i64
// CHECK-SAME:      {name = "s32", offset = 256 : i64, bytes = 64 : i64, versions = 1 : i64, alignment = 256 : i64
// CHECK-SAME:      {name = "own", offset = 128 : i64, bytes = 64 : i64, versions = 1 : i64, alignment = 128 : i64
// CHECK-SAME:      : memref<1088xi8, "shared">
func.func @swizzle_alignment(%G: memref<1024xf16>) attributes {tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<24xf16, "shared">
  %s128 = memref.alloc() {arena.swizzle = 128 : i64} : memref<32xf16, "shared">
  %s64 = memref.alloc() {arena.swizzle = 64 : i64} : memref<32xf16, "shared">
  %s32 = memref.alloc() {arena.swizzle = 32 : i64} : memref<32xf16, "shared">
  %own = memref.alloc() {alignment = 128 : i64} : memref<32xf16, "shared">
  tile.copy<24> %G[%c0] -> %a : memref<1024xf16> -> memref<24xf16, "shared">
  tile.copy<32> %G[%c0] -> %s128 : memref<1024xf16> -> memref<32xf16, "shared">
  tile.copy<32> %G[%c0] -> %s64 : memref<1024xf16> -> memref<32xf16, "shared">
  tile.copy<32> %G[%c0] -> %s32 : memref<1024xf16> -> memref<32xf16, "shared">
  tile.copy<32> %G[%c0] -> %own : memref<1024xf16> -> memref<32xf16, "shared">
  tile.add<32> %s128, %s64 -> %s32 : memref<32xf16, "shared">, memref<32xf16, "shared"> -> memref<32xf16, "shared">
  tile.add<32> %own, %s32 -> %own : memref<32xf16, "shared">, memref<32xf16, "shared"> -> memref<32xf16, "shared">
  tile.copy<24> %a -> %G[%c0] : memref<24xf16, "shared"> -> memref<1024xf16>
  func.return
}

// -----

// A free block that touches the arena top grows instead of bumping past it: p dies,
// q takes [0, 64) of its bytes, and r starts in the rest, at 64, so the arena is
// 64 + 1024 bytes, not 256 + 1024.
// CHECK-LABEL: func.func @grow_top_block
// CHECK:         : memref<1088xi8, "shared">
// CHECK:         %p_offset = arith.constant 0 : index
// CHECK:         %q_offset = arith.constant 0 : index
// CHECK:         %r_offset = arith.constant 64 : index
func.func @grow_top_block(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %p = memref.alloc() : memref<128xf16, "shared">
  %q = memref.alloc() : memref<32xf16, "shared">
  %r = memref.alloc() : memref<512xf16, "shared">
  tile.copy<128> %G[%c0] -> %p : memref<1024xf16> -> memref<128xf16, "shared">
  tile.copy<128> %p -> %G[%c0] : memref<128xf16, "shared"> -> memref<1024xf16>
  tile.copy<32> %G[%c0] -> %q : memref<1024xf16> -> memref<32xf16, "shared">
  tile.copy<512> %G[%c0] -> %r : memref<1024xf16> -> memref<512xf16, "shared">
  tile.copy<32> %q -> %G[%c0] : memref<32xf16, "shared"> -> memref<1024xf16>
  tile.copy<512> %r -> %G[%c0] : memref<512xf16, "shared"> -> memref<1024xf16>
  func.return
}
