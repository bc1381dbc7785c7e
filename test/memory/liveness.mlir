// Liveness in program order: first to last touch, widened to a whole loop when the
// buffer is touched inside a loop that does not also contain its allocation.

// RUN: tile-opt %s --split-input-file -p merge-shared-memory | filecheck %s

// q is last read by the loop's first op and t first written by its second, but both
// are touched inside the loop, so both are live across all of it and cannot share.
// CHECK-LABEL: func.func @loop_keeps_buffers_live
// CHECK:         : memref<256xi8, "shared">
// CHECK:         %q_offset = arith.constant 0 : index
// CHECK:         %t_offset = arith.constant 128 : index
func.func @loop_keeps_buffers_live(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %q = memref.alloc() : memref<64xf16, "shared">
  %t = memref.alloc() : memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %q : memref<1024xf16> -> memref<64xf16, "shared">
  scf.for %k = %c0 to %c8 step %c1 {
    tile.copy<64> %q -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
    tile.copy<64> %G[%c0] -> %t : memref<1024xf16> -> memref<64xf16, "shared">
    tile.copy<64> %t -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  }
  func.return
}

// -----

// Buffers allocated inside the loop body live only between their touches in it: u
// dies before w is born, so they share offset 0; the views stay where the allocs were.
// CHECK-LABEL: func.func @allocated_inside_loop
// CHECK:         : memref<128xi8, "shared">
// CHECK:         scf.for
// CHECK-NEXT:      %u_offset = arith.constant 0 : index
// CHECK-NEXT:      %u = memref.view %shared_arena[%u_offset][]
// CHECK-NEXT:      %w_offset = arith.constant 0 : index
// CHECK-NEXT:      %w = memref.view %shared_arena[%w_offset][]
func.func @allocated_inside_loop(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %k = %c0 to %c8 step %c1 {
    %u = memref.alloc() : memref<64xf16, "shared">
    %w = memref.alloc() : memref<64xf16, "shared">
    tile.copy<64> %G[%c0] -> %u : memref<1024xf16> -> memref<64xf16, "shared">
    tile.copy<64> %u -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
    tile.copy<64> %G[%c0] -> %w : memref<1024xf16> -> memref<64xf16, "shared">
    tile.copy<64> %w -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  }
  func.return
}

// -----

// scf.if runs its region at most once: it is not a loop, so x (touched in the branch)
// dies before y is born and y reuses its bytes.
// CHECK-LABEL: func.func @if_is_not_a_loop
// CHECK:         : memref<128xi8, "shared">
// CHECK:         %x_offset = arith.constant 0 : index
// CHECK:         %y_offset = arith.constant 0 : index
func.func @if_is_not_a_loop(%G: memref<1024xf16>, %flag: i1) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %x = memref.alloc() : memref<64xf16, "shared">
  %y = memref.alloc() : memref<64xf16, "shared">
  scf.if %flag {
    tile.copy<64> %G[%c0] -> %x : memref<1024xf16> -> memref<64xf16, "shared">
    tile.copy<64> %x -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  }
  tile.copy<64> %G[%c0] -> %y : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %y -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  func.return
}

// -----

// At the tile level a pipeline.for is a loop like any other: A_s and B_s live across
// it, the epilogue-only C_s reuses A_s's bytes after it.
// CHECK-LABEL: func.func @tile_level_pipeline
// CHECK:         {name = "A_s", offset = 0 : i64, bytes = 16384 : i64, versions = 1 : i64, alignment = 16 : i64, live = array<i64: [[LOOP:[0-9]+]], [[END:[0-9]+]]>}
// CHECK-SAME:    {name = "B_s", offset = 16384 : i64, bytes = 16384 : i64, versions = 1 : i64, alignment = 16 : i64, live = array<i64: [[LOOP]], [[END]]>}
// CHECK-SAME:    {name = "C_s", offset = 0 : i64
// CHECK-SAME:    : memref<32768xi8, "shared">
func.func @tile_level_pipeline(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>, %C: memref<1024x1024xf16>)
    attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.000000e+00 : f32
  %A_s = memref.alloc() : memref<128x64xf16, "shared">
  %B_s = memref.alloc() : memref<64x128xf16, "shared">
  %C_s = memref.alloc() : memref<64x128xf16, "shared">
  %C_f = memref.alloc() : memref<128x128xf32, "fragment">
  tile.fill<128x128> %zero -> %C_f : f32 -> memref<128x128xf32, "fragment">
  pipeline.for %ko = %c0 to %c16 step %c1 num_stages = 2 {
    tile.copy<128x64> %A[%c0, %ko] -> %A_s : memref<1024x1024xf16> -> memref<128x64xf16, "shared">
    tile.copy<64x128> %B[%ko, %c0] -> %B_s : memref<1024x1024xf16> -> memref<64x128xf16, "shared">
    tile.gemm<128x128x64> %A_s, %B_s -> %C_f : memref<128x64xf16, "shared">, memref<64x128xf16, "shared"> -> memref<128x128xf32, "fragment">
  }
  tile.cast<64x128> %C_f -> %C_s : memref<128x128xf32, "fragment"> -> memref<64x128xf16, "shared">
  tile.copy<64x128> %C_s -> %C[%c0, %c0] : memref<64x128xf16, "shared"> -> memref<1024x1024xf16>
  func.return
}

// -----

// Touches through an alias (memref.cast) count; deallocations go (the arena outlives
// its buffers); a buffer nothing touches needs no bytes and disappears.
// CHECK-LABEL: func.func @aliases_and_deallocs
// CHECK:         : memref<256xi8, "shared">
// CHECK:         %a_offset = arith.constant 0 : index
// CHECK:         %b_offset = arith.constant 128 : index
// CHECK:         "memref.cast"(%a)
// CHECK-NOT:     memref.dealloc
// CHECK-NOT:     memref.alloc
func.func @aliases_and_deallocs(%G: memref<1024xf16>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<64xf16, "shared">
  %b = memref.alloc() : memref<64xf16, "shared">
  %unused = memref.alloc() : memref<4096xf16, "shared">
  %a_any = "memref.cast"(%a) : (memref<64xf16, "shared">) -> memref<?xf16, "shared">
  tile.copy<64> %G[%c0] -> %a : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %b : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %b -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  memref.dealloc %b : memref<64xf16, "shared">
  tile.copy<64> %a_any[%c0] -> %G[%c0] : memref<?xf16, "shared"> -> memref<1024xf16>
  memref.dealloc %a : memref<64xf16, "shared">
  func.return
}

// -----

// No on-chip buffers (fragments are registers, not an arena): nothing changes.
// CHECK-LABEL: func.func @no_shared_buffers
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %C_f = memref.alloc() : memref<64xf32, "fragment">
// CHECK-NOT:     arena
func.func @no_shared_buffers(%G: memref<1024xf32>) attributes {tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %C_f = memref.alloc() : memref<64xf32, "fragment">
  tile.copy<64> %G[%c0] -> %C_f : memref<1024xf32> -> memref<64xf32, "fragment">
  tile.copy<64> %C_f -> %G[%c0] : memref<64xf32, "fragment"> -> memref<1024xf32>
  func.return
}

// -----

// mbarrier storage is live for the whole kernel: p (dead before the mbarriers are
// initialized) and q (born after their last wait) share bytes, the mbarriers never do
// -- nothing would order the init after p's last read, and the hardware wants
// mbarrier.inval before the bytes hold anything else.
// CHECK-LABEL: func.func @mbarriers_never_reused
// CHECK:         {name = "bars", offset = 0 : i64, bytes = 16 : i64, versions = 1 : i64, alignment = 16 : i64, live = array<i64: 0, 11>}
// CHECK-SAME:    : memref<144xi8, "shared">
// CHECK:         %p_offset = arith.constant 16 : index
// CHECK:         %bars_offset = arith.constant 0 : index
// CHECK:         %q_offset = arith.constant 16 : index
func.func @mbarriers_never_reused(%G: memref<1024xf16>) attributes {tile.target = "sm_90"} {
  %c0 = arith.constant 0 : index
  %p = memref.alloc() : memref<64xf16, "shared">
  %bars = memref.alloc() : memref<2xi64, "shared">
  %q = memref.alloc() : memref<64xf16, "shared">
  tile.copy<64> %G[%c0] -> %p : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %p -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  pipeline.mbarrier_init %bars[%c0], arrivals = 1 : memref<2xi64, "shared">
  pipeline.mbarrier_arrive %bars[%c0] : memref<2xi64, "shared">
  pipeline.mbarrier_wait_parity %bars[%c0], %c0 : memref<2xi64, "shared">
  tile.copy<64> %G[%c0] -> %q : memref<1024xf16> -> memref<64xf16, "shared">
  tile.copy<64> %q -> %G[%c0] : memref<64xf16, "shared"> -> memref<1024xf16>
  func.return
}
