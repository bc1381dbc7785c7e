// RUN: tile-opt %s --split-input-file --verify-diagnostics
// Every verifier error of the ascend dialect.

func.func @illegal_pipe_pair() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{illegal pipe pair MTE1_FIX: no such hard event}}
  ascend.set_flag[MTE1, FIX] 0
  func.return
}

// -----

func.func @non_canonical_event() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{hard event MTE2_M is not canonical; use MTE2_MTE1}}
  ascend.wait_flag[MTE2, M] 0
  func.return
}

// -----

func.func @non_canonical_m_mte3() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{hard event M_MTE3 is not canonical; use MTE1_MTE3}}
  ascend.set_flag[M, MTE3] 0
  func.return
}

// -----

func.func @flag_on_pipe_all() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{PIPE_ALL cannot carry a flag}}
  ascend.set_flag[ALL, V] 0
  func.return
}

// -----

func.func @event_id_out_of_range() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{event id 8 is out of range [0, 8) on ascend910b}}
  ascend.set_flag[MTE2, V] 8
  func.return
}

// -----

func.func @negative_event_id() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{event id -1 is out of range [0, 8)}}
  ascend.wait_flag[V, MTE3] -1
  func.return
}

// -----

func.func @pipe_s_barrier() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{PIPE_S cannot be barriered}}
  ascend.pipe_barrier[S]
  func.return
}

// -----

func.func @cross_core_id_out_of_range() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{cross-core flag id 16 is out of range [0, 16)}}
  ascend.cross_core_set_flag[2, FIX] 16
  func.return
}

// -----

func.func @cross_core_mode() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{cross-core mode 4 is not one of 0, 1, 2}}
  ascend.cross_core_wait_flag[4, V] 0
  func.return
}

// -----

func.func @cross_core_pipe_all() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{a cross-core flag needs a pipe, not PIPE_ALL}}
  ascend.cross_core_set_flag[2, ALL] 0
  func.return
}

// -----

func.func @lock_slot_out_of_range() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{lock slot 32 is out of range [0, 32)}}
  ascend.get_buf[MTE2] 32 non_block
  func.return
}

// -----

func.func @lock_on_pipe_all() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{a lock is taken by one pipe, not PIPE_ALL}}
  ascend.rls_buf[ALL] 0 block
  func.return
}

// -----

func.func @cuda_target() attributes {tile.target = "sm_80"} {
  // expected-error @+1 {{ascend ops need an Ascend target, the kernel targets 'sm_80'}}
  ascend.set_flag[MTE2, V] 0
  func.return
}

// -----

func.func @copy_gm_to_l0a(%A: memref<256x256xf16>) attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<128x64xf16, "l0a">
  // expected-error @+1 {{cannot move gm -> l0a (legal: gm -> ub, gm -> l1, ub -> gm, ub -> ub)}}
  ascend.data_copy<128x64> %A -> %a : memref<256x256xf16> -> memref<128x64xf16, "l0a">
  func.return
}

// -----

func.func @nd2nz_to_ub(%A: memref<256x256xf16>) attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<128x64xf16, "ub">
  // expected-error @+1 {{ND -> NZ copies go from gm to l1}}
  ascend.data_copy_nd2nz<128x64> %A -> %u : memref<256x256xf16> -> memref<128x64xf16, "ub">
  func.return
}

// -----

func.func @load_data_to_ub() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<128x64xf16, "l1">
  %u = memref.alloc() : memref<128x64xf16, "ub">
  // expected-error @+1 {{cannot move l1 -> ub (legal: l1 -> l0a, l1 -> l0b)}}
  ascend.load_data<128x64> %a -> %u : memref<128x64xf16, "l1"> -> memref<128x64xf16, "ub">
  func.return
}

// -----

func.func @fixpipe_from_ub(%C: memref<128x128xf32>) attributes {tile.target = "ascend910b"} {
  %u = memref.alloc() : memref<128x128xf32, "ub">
  // expected-error @+1 {{cannot move ub -> gm (legal: l0c -> gm, l0c -> l1)}}
  ascend.fixpipe<128x128> %u -> %C : memref<128x128xf32, "ub"> -> memref<128x128xf32>
  func.return
}

// -----

func.func @mmad_a_in_l1() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<128x64xf16, "l1">
  %b = memref.alloc() : memref<64x128xf16, "l0b">
  %c = memref.alloc() : memref<128x128xf32, "l0c">
  // expected-error @+1 {{a may not live in l1 memory (legal: l0a)}}
  ascend.mmad<128x128x64> %a, %b -> %c : memref<128x64xf16, "l1">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  func.return
}

// -----

func.func @mmad_f16_accumulator() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<128x64xf16, "l0a">
  %b = memref.alloc() : memref<64x128xf16, "l0b">
  %c = memref.alloc() : memref<128x128xf16, "l0c">
  // expected-error @+1 {{mmad accumulates in f32, got f16}}
  ascend.mmad<128x128x64> %a, %b -> %c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf16, "l0c">
  func.return
}

// -----

func.func @mmad_not_mnk() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<128x64xf16, "l0a">
  %b = memref.alloc() : memref<64x128xf16, "l0b">
  %c = memref.alloc() : memref<128x128xf32, "l0c">
  // expected-error @+1 {{mmad tile shape must be MxNxK, got 128x128}}
  ascend.mmad<128x128> %a, %b -> %c : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  func.return
}

// -----

func.func @vector_op_on_l1() attributes {tile.target = "ascend910b"} {
  %a = memref.alloc() : memref<64xf16, "l1">
  %u = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{lhs may not live in l1 memory (legal: ub)}}
  ascend.add<64> %a, %u -> %u : memref<64xf16, "l1">, memref<64xf16, "ub"> -> memref<64xf16, "ub">
  func.return
}

// -----

func.func @duplicate_on_gm(%x: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  %one = arith.constant 1.0 : f16
  // expected-error @+1 {{dst may not live in global memory (legal: ub)}}
  ascend.duplicate<64> %one -> %x : f16 -> memref<64xf16>
  func.return
}

// -----

func.func @core_contradicts_pipe() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{PIPE_V runs on the vector core, not the cube core}}
  ascend.set_flag[MTE2, V] 0 {ascend.core = "cube"}
  func.return
}

// -----

func.func @unknown_core() attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{ascend.core must be one of cube, vector}}
  ascend.pipe_barrier[MTE2] {ascend.core = "aiv"}
  func.return
}

// -----

func.func @zero_tail_of_an_on_chip_region(%x_l1: memref<64xf16, "l1">) attributes {tile.target = "ascend910b"} {
  %y_ub = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{src must be a gm region, got l1}}
  ascend.zero_tail<64> %x_l1 -> %y_ub : memref<64xf16, "l1"> -> memref<64xf16, "ub">
  func.return
}

// -----

func.func @zero_tail_on_gm(%x: memref<?xf16>, %y: memref<64xf16>) attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{dst may not live in global memory (legal: ub)}}
  ascend.zero_tail<64> %x -> %y : memref<?xf16> -> memref<64xf16>
  func.return
}

// -----

func.func @zero_tail_element_types(%x: memref<?xf32>) attributes {tile.target = "ascend910b"} {
  %y_ub = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{element types differ (f32 vs f16)}}
  ascend.zero_tail<64> %x -> %y_ub : memref<?xf32> -> memref<64xf16, "ub">
  func.return
}

// -----

func.func @zero_tail_offsets(%x: memref<?x?xf16>) attributes {tile.target = "ascend910b"} {
  %c0 = arith.constant 0 : index
  %y_ub = memref.alloc() : memref<64xf16, "ub">
  // expected-error @+1 {{src has 1 offsets for a rank-2 buffer}}
  ascend.zero_tail<64> %x[%c0] -> %y_ub : memref<?x?xf16> -> memref<64xf16, "ub">
  func.return
}
