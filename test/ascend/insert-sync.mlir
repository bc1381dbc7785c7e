// RUN: tile-opt %s --split-input-file -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync | filecheck %s

// Double-buffered vector add.  Four sync points survive the transitive pruning:
// x_ub's RAW (MTE2 -> V) is implied by y_ub's (x's copy is issued before y's on MTE2)
// and y_ub's WAR by x_ub's.  Loop-carried (WAR) points are rings of 2 ids, primed
// before the loop and drained after it; ids are `iteration mod 2 + base`.
// CHECK-LABEL: func.func @vadd
// CHECK:      ascend.set_flag[V, MTE2] %c0 {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT: ascend.set_flag[V, MTE2] %c1 {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT: ascend.set_flag[MTE3, V] %c0 {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT: ascend.set_flag[MTE3, V] %c1 {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT: pipeline.for
// CHECK-NEXT:   %[[SLOT:.*]] = arith.remsi %{{.*}}, %{{.*}} : index
// CHECK:        ascend.wait_flag[V, MTE2] %[[SLOT]] {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT:   tile.copy<256> %x
// CHECK-NEXT:   tile.copy<256> %y
// CHECK-NEXT:   ascend.set_flag[MTE2, V] %[[SLOT]] {ascend.sync_point = "y_ub:raw"}
// CHECK-NEXT:   ascend.wait_flag[MTE2, V] %[[SLOT]] {ascend.sync_point = "y_ub:raw"}
// CHECK-NEXT:   ascend.wait_flag[MTE3, V] %[[SLOT]] {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT:   tile.add<256>
// CHECK-NEXT:   ascend.set_flag[V, MTE3] %[[SLOT]] {ascend.sync_point = "z_ub:raw"}
// CHECK-NEXT:   ascend.set_flag[V, MTE2] %[[SLOT]] {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT:   ascend.wait_flag[V, MTE3] %[[SLOT]] {ascend.sync_point = "z_ub:raw"}
// CHECK-NEXT:   tile.copy<256> %z_ub
// CHECK-NEXT:   ascend.set_flag[MTE3, V] %[[SLOT]] {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag[MTE3, V] %c0 {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT: ascend.wait_flag[MTE3, V] %c1 {ascend.sync_point = "z_ub:war"}
// CHECK-NEXT: ascend.wait_flag[V, MTE2] %c0 {ascend.sync_point = "x_ub:war"}
// CHECK-NEXT: ascend.wait_flag[V, MTE2] %c1 {ascend.sync_point = "x_ub:war"}
// CHECK-NOT: x_ub:raw
func.func @vadd(%x: memref<4096xf16>, %y: memref<4096xf16>, %z: memref<4096xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %x_ub = memref.alloc() : memref<256xf16, "ub">
  %y_ub = memref.alloc() : memref<256xf16, "ub">
  %z_ub = memref.alloc() : memref<256xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 2 {
    %off = arith.muli %i, %c256 : index
    tile.copy<256> %x[%off] -> %x_ub : memref<4096xf16> -> memref<256xf16, "ub">
    tile.copy<256> %y[%off] -> %y_ub : memref<4096xf16> -> memref<256xf16, "ub">
    tile.add<256> %x_ub, %y_ub -> %z_ub : memref<256xf16, "ub">, memref<256xf16, "ub"> -> memref<256xf16, "ub">
    tile.copy<256> %z_ub -> %z[%off] : memref<256xf16, "ub"> -> memref<4096xf16>
  }
  func.return
}

// -----

// One version (num_stages = 1): the same protocol with one id per point, static
// (`iteration mod 1` folds away), the WAR rings primed and drained once.
// CHECK-LABEL: func.func @single_buffer
// CHECK:      ascend.set_flag[V, MTE2] %[[C0:.*]] {ascend.sync_point = "u:war"}
// CHECK-NEXT: pipeline.for
// CHECK-NEXT:   ascend.wait_flag[V, MTE2] %[[C0]] {ascend.sync_point = "u:war"}
// CHECK-NEXT:   tile.copy<64>
// CHECK-NEXT:   ascend.set_flag[MTE2, V] %[[C0]] {ascend.sync_point = "u:raw"}
// CHECK-NEXT:   ascend.wait_flag[MTE2, V] %[[C0]] {ascend.sync_point = "u:raw"}
// CHECK-NEXT:   tile.exp<64>
// CHECK-NEXT:   ascend.set_flag[V, MTE2] %[[C0]] {ascend.sync_point = "u:war"}
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag[V, MTE2] %[[C0]] {ascend.sync_point = "u:war"}
func.func @single_buffer(%x: memref<1024xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  %v = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c16 step %c1 num_stages = 1 {
    tile.copy<64> %x -> %u : memref<1024xf16> -> memref<64xf16, "ub">
    tile.exp<64> %u -> %v : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  }
  func.return
}

// -----

// Same pipe: V keeps its own order (nothing between the two vector ops); two MTE2
// writes of one buffer need a pipe_barrier (issue order does not order MTE
// completions); MTE2 -> V -> MTE3 across straight-line code uses static ids.
// CHECK-LABEL: func.func @same_pipe
// CHECK:      tile.copy<64> %x -> %u
// CHECK-NEXT: ascend.pipe_barrier[MTE2] {ascend.sync_point = "u:waw", ascend.core = "vector"}
// CHECK-NEXT: tile.copy<64> %y -> %u
// CHECK-NEXT: ascend.set_flag[MTE2, V]
// CHECK-NEXT: ascend.wait_flag[MTE2, V]
// CHECK-NEXT: tile.exp<64>
// CHECK-NEXT: tile.exp<64>
// CHECK-NEXT: ascend.set_flag[V, MTE3]
// CHECK-NEXT: ascend.wait_flag[V, MTE3]
// CHECK-NEXT: tile.copy<64> %u -> %x
func.func @same_pipe(%x: memref<64xf16>, %y: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<64xf16, "ub">
  tile.copy<64> %x -> %u : memref<64xf16> -> memref<64xf16, "ub">
  tile.copy<64> %y -> %u : memref<64xf16> -> memref<64xf16, "ub">
  tile.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  tile.exp<64> %u -> %u : memref<64xf16, "ub"> -> memref<64xf16, "ub">
  tile.copy<64> %u -> %x : memref<64xf16, "ub"> -> memref<64xf16>
  func.return
}

// -----

// A dependence from a loop to the code after it: the set goes after the loop (on the
// producer pipe, so it covers every iteration, also none), the wait before the
// consumer.
// CHECK-LABEL: func.func @after_loop
// CHECK:      pipeline.for
// CHECK-NEXT:   tile.gemm
// CHECK-NEXT: }
// CHECK-NEXT: ascend.set_flag[M, FIX] %{{.*}} {ascend.sync_point = "c:raw"}
// CHECK:      ascend.wait_flag[M, FIX] %{{.*}} {ascend.sync_point = "c:raw"}
// CHECK-NEXT: tile.copy<128x128> %c -> %C
func.func @after_loop(%C: memref<128x128xf32>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<128x64xf16, "l0a">
  %b = memref.alloc() : memref<64x128xf16, "l0b">
  %c = memref.alloc() : memref<128x128xf32, "l0c">
  pipeline.for %k = %c0 to %c4 step %c1 num_stages = 2 {
    tile.gemm<128x128x64> %a, %b -> %c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  }
  tile.copy<128x128> %c -> %C : memref<128x128xf32, "l0c"> -> memref<128x128xf32>
  func.return
}

// -----

// Cube -> vector through GM: cross-core flags (mode 2: AIC <-> both AIVs).  PIPE_MTE2
// exists on both cores, so the wait names its core.
// CHECK-LABEL: func.func @cross_core
// CHECK:      tile.copy<64x64> %c -> %W
// CHECK-NEXT: ascend.cross_core_set_flag[2, FIX] %{{.*}} {ascend.sync_point = "W:raw"}
// CHECK-NEXT: ascend.cross_core_wait_flag[2, MTE2] %{{.*}} {ascend.sync_point = "W:raw", ascend.core = "vector"}
// CHECK-NEXT: tile.copy<64x64> %W -> %u
func.func @cross_core(%W: memref<64x64xf32>) attributes {tile.target = "ascend910b"} {
  %c = memref.alloc() : memref<64x64xf32, "l0c">
  %u = memref.alloc() : memref<64x64xf32, "ub">
  tile.copy<64x64> %c -> %W : memref<64x64xf32, "l0c"> -> memref<64x64xf32>
  tile.copy<64x64> %W -> %u : memref<64x64xf32> -> memref<64x64xf32, "ub">
  func.return
}

// -----

// MTE2 writes to disjoint rows of one UB buffer: no barrier between them (the regions
// cannot meet); one flag before the read orders both (a set waits for every earlier
// instruction of its pipe).
// CHECK-LABEL: func.func @disjoint_rows
// CHECK:      tile.copy<8x64> %x[%c0, %c0] -> %u[%c0, %c0]
// CHECK-NEXT: tile.copy<8x64> %x[%c16, %c0] -> %u[%c8, %c0]
// CHECK-NEXT: ascend.set_flag[MTE2, MTE3] %{{.*}} {ascend.sync_point = "u:raw"}
// CHECK-NEXT: ascend.wait_flag[MTE2, MTE3] %{{.*}} {ascend.sync_point = "u:raw"}
// CHECK-NOT:  pipe_barrier
func.func @disjoint_rows(%x: memref<32x64xf32>, %y: memref<16x64xf32>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %u = memref.alloc() : memref<16x64xf32, "ub">
  tile.copy<8x64> %x[%c0, %c0] -> %u[%c0, %c0] : memref<32x64xf32> -> memref<16x64xf32, "ub">
  tile.copy<8x64> %x[%c16, %c0] -> %u[%c8, %c0] : memref<32x64xf32> -> memref<16x64xf32, "ub">
  tile.copy<16x64> %u -> %y : memref<16x64xf32, "ub"> -> memref<16x64xf32>
  func.return
}

// -----

// A loop with no more iterations than its buffers have versions: the WAR rings
// (distance 2) could never fire, so none is emitted; the RAW sync stays.
// CHECK-LABEL: func.func @short_loop
// CHECK-NOT:  :war
// CHECK:      ascend.set_flag[MTE2, MTE3] {{.*}} {ascend.sync_point = "u:raw"}
// CHECK-NOT:  :war
func.func @short_loop(%x: memref<128xf16>, %y: memref<128xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %u = memref.alloc() : memref<64xf16, "ub">
  pipeline.for %i = %c0 to %c2 step %c1 num_stages = 2 {
    %o = arith.muli %i, %c64 : index
    tile.copy<64> %x[%o] -> %u : memref<128xf16> -> memref<64xf16, "ub">
    tile.copy<64> %u -> %y[%o] : memref<64xf16, "ub"> -> memref<128xf16>
  }
  func.return
}

// -----

// The fill -> copy-out edge of %a is not implied through the loop body's syncs
// (fill -> mul on V, mul -> copy of %b, MTE3 issue order): with %n = 0 the body and
// its syncs never run.  So %a gets its own flag, set after the fill and waited
// before the copy out, whatever the loop does.
// CHECK-LABEL: func.func @zero_trips
// CHECK:      tile.fill<8x8> %zero -> %a
// CHECK-NEXT: ascend.set_flag[V, MTE3] %[[ID:.*]] {ascend.sync_point = "a:raw"}
// CHECK:      pipeline.for
// CHECK:      }
// CHECK:      ascend.wait_flag[V, MTE3] %[[ID]] {ascend.sync_point = "a:raw"}
// CHECK-NEXT: tile.copy<8x8> %a -> %out
func.func @zero_trips(%out: memref<8x8xf32>, %z: memref<8x8xf32>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32, "ub">
  %b = memref.alloc() : memref<8x8xf32, "ub">
  tile.fill<8x8> %zero -> %a : f32 -> memref<8x8xf32, "ub">
  pipeline.for %k = %c0 to %n step %c1 num_stages = 1 {
    tile.mul<8x8> %a, %a -> %b : memref<8x8xf32, "ub">, memref<8x8xf32, "ub"> -> memref<8x8xf32, "ub">
    tile.copy<8x8> %b -> %z : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  }
  tile.copy<8x8> %a -> %out : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  func.return
}

// -----

// A loop that certainly runs (one trip) does order them: no flag of its own for %a.
// CHECK-LABEL: func.func @one_trip
// CHECK-NOT:  a:raw
// CHECK:      func.return
func.func @one_trip(%out: memref<8x8xf32>, %z: memref<8x8xf32>, %n: index) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32, "ub">
  %b = memref.alloc() : memref<8x8xf32, "ub">
  tile.fill<8x8> %zero -> %a : f32 -> memref<8x8xf32, "ub">
  pipeline.for %k = %c0 to %c1 step %c1 num_stages = 1 {
    tile.mul<8x8> %a, %a -> %b : memref<8x8xf32, "ub">, memref<8x8xf32, "ub"> -> memref<8x8xf32, "ub">
    tile.copy<8x8> %b -> %z : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  }
  tile.copy<8x8> %a -> %out : memref<8x8xf32, "ub"> -> memref<8x8xf32>
  func.return
}
