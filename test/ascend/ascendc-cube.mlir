// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// Cube ops, a 2-D grid, strided GM tiles, an scf.if, barriers, cross-core flags and
// lock-pool slots printed as AscendC.

// CHECK-LABEL: void mm(GM_ADDR A, GM_ADDR B, GM_ADDR C, GM_ADDR w, bool last) {
// CHECK:       int64_t bx = AscendC::GetBlockIdx() % 2;
// CHECK-NEXT:  int64_t by = AscendC::GetBlockIdx() / 2 % 2;
// CHECK:       AscendC::TBuf<AscendC::TPosition::A1> a_l1_buf;
// CHECK:       AscendC::TBuf<AscendC::TPosition::A2> a_l0a_buf;
// CHECK:       AscendC::TBuf<AscendC::TPosition::B2> b_l0b_buf;
// CHECK:       AscendC::TBuf<AscendC::TPosition::CO1> c_l0c_buf;
// CHECK:       for (int64_t k = 0; k < 4; k += 1) {
// CHECK:         bool first = k == 0;
// GM (ND) -> L1 (NZ): 128 rows of 64 from rows of 256; L1 column blocks 128 apart.
// CHECK:         AscendC::DataCopy(a_l1, A_gm[m0 * 256 + k0], AscendC::Nd2NzParams(1, 128, 64, 0, 256, 128, 1, 0));
// CHECK-NEXT:    AscendC::PipeBarrier<PIPE_MTE2>();
// CHECK:         AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE1>(0);
// CHECK-NEXT:    AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE1>(0);
// L1 (NZ) -> L0A: per 16-row block, 4 fractals 8 apart; L0B: per block, transposed.
// CHECK-NEXT:    for (int64_t b = 0; b < 8; b += 1) {
// CHECK-NEXT:      AscendC::LoadData(a_l0a[b * 1024], a_l1[b * 256], AscendC::LoadData2DParams(0, 4, 8, 0, 0, false, 0));
// CHECK-NEXT:    }
// CHECK-NEXT:    for (int64_t b_1 = 0; b_1 < 4; b_1 += 1) {
// CHECK-NEXT:      AscendC::LoadData(b_l0b[b_1 * 2048], b_l1[b_1 * 256], AscendC::LoadData2DParams(0, 8, 4, 0, 0, true, 0));
// CHECK-NEXT:    }
// CHECK:         AscendC::Mmad(c_l0c, a_l0a, b_l0b, AscendC::MmadParams(128, 128, 64, 0, false, first));
// CHECK:       if (last) {
// CHECK-NEXT:    AscendC::Fixpipe(C_gm[m0 * 256 + n0], c_l0c, AscendC::FixpipeParamsV220(128, 128, 128, 256, false));
// CHECK-NEXT:  } else {
// CHECK-NEXT:    AscendC::CrossCoreSetFlag<2, PIPE_FIX>(3);
// CHECK-NEXT:  }
// Into L1 for the cube, the fixpipe keeps the NZ layout (CFG_NZ) and converts f32 to
// f16 on the way (quantPre F322F16).
// CHECK:       AscendC::Fixpipe<half, float, AscendC::CFG_NZ>(c_l1, c_l0c, AscendC::FixpipeParamsV220(128, 128, 128, 128, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0));
// The 910B class reaches the lock pool through the buffer-lock intrinsics (true:
// non-blocking, a spilled set; false: blocking, a spilled wait).
// CHECK:       get_buf(PIPE_MTE3, 4, true);
// CHECK-NEXT:  rls_buf(PIPE_MTE3, 4, true);
// CHECK-NEXT:  get_buf(PIPE_V, 4, false);
// CHECK-NEXT:  rls_buf(PIPE_V, 4, false);
func.func @mm(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>, %w: memref<64xf16>, %last: i1) attributes {tile.target = "ascend910b", tile.grid = array<i64: 2, 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %m0 = arith.muli %by, %c128 : index
  %n0 = arith.muli %bx, %c128 : index
  %a_l1 = memref.alloc() : memref<128x64xf16, "l1">
  %b_l1 = memref.alloc() : memref<64x128xf16, "l1">
  %a_l0a = memref.alloc() : memref<128x64xf16, "l0a">
  %b_l0b = memref.alloc() : memref<64x128xf16, "l0b">
  %c_l0c = memref.alloc() : memref<128x128xf32, "l0c">
  %c_l1 = memref.alloc() : memref<128x128xf16, "l1">
  scf.for %k = %c0 to %c4 step %c1 {
    %first = arith.cmpi eq, %k, %c0 : index
    %k0 = arith.muli %k, %c64 : index
    ascend.data_copy_nd2nz<128x64> %A[%m0, %k0] -> %a_l1 : memref<256x256xf16> -> memref<128x64xf16, "l1">
    ascend.pipe_barrier[MTE2]
    ascend.data_copy_nd2nz<64x128> %B[%k0, %n0] -> %b_l1 : memref<256x256xf16> -> memref<64x128xf16, "l1">
    ascend.set_flag[MTE2, MTE1] 0
    ascend.wait_flag[MTE2, MTE1] 0
    ascend.load_data<128x64> %a_l1 -> %a_l0a : memref<128x64xf16, "l1"> -> memref<128x64xf16, "l0a">
    ascend.load_data<64x128> %b_l1 -> %b_l0b : memref<64x128xf16, "l1"> -> memref<64x128xf16, "l0b">
    ascend.set_flag[MTE1, M] 0
    ascend.wait_flag[MTE1, M] 0
    ascend.mmad<128x128x64> %a_l0a, %b_l0b -> %c_l0c init %first : memref<128x64xf16, "l0a">, memref<64x128xf16, "l0b"> -> memref<128x128xf32, "l0c">
  }
  scf.if %last {
    ascend.fixpipe<128x128> %c_l0c -> %C[%m0, %n0] : memref<128x128xf32, "l0c"> -> memref<256x256xf32>
  } else {
    ascend.cross_core_set_flag[2, FIX] 3
  }
  ascend.fixpipe<128x128> %c_l0c -> %c_l1 : memref<128x128xf32, "l0c"> -> memref<128x128xf16, "l1">
  ascend.get_buf[MTE3] 4 non_block
  ascend.rls_buf[MTE3] 4 non_block
  ascend.get_buf[V] 4 block
  ascend.rls_buf[V] 4 block
  func.return
}
