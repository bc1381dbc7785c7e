// The Ascend examples through the whole pipeline, printed as AscendC that passes the
// syntax check against the declarations-only header.
// RUN: tile-opt %examples/ascend_vadd.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget -o %t.vadd.mlir
// RUN: %python -m tilepipe.drivers.ascendc %t.vadd.mlir --syntax-check | filecheck %s --check-prefix=VADD
// RUN: tile-opt %examples/ascend_matmul.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget -o %t.mm.mlir
// RUN: %python -m tilepipe.drivers.ascendc %t.mm.mlir --syntax-check | filecheck %s --check-prefix=MATMUL
// RUN: tile-opt %examples/ascend_matmul_vector.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget -o %t.mixed.mlir
// RUN: %python -m tilepipe.drivers.ascendc %t.mixed.mlir --syntax-check | filecheck %s --check-prefix=MIXED

// VADD-LABEL: void vadd(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
// VADD:       AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(0);
// VADD-NEXT:  AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(1);
// VADD:       for (int64_t i = 0; i < 16; i += 1) {
// VADD-NEXT:    int64_t v = i % 2;
// VADD:         AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(v);
// VADD-NEXT:    AscendC::DataCopy(x_ub[v * 256], x_gm[off], 256);
// VADD:         AscendC::Add(z_ub[v * 256], x_ub[v * 256], y_ub[v * 256], 256);
// VADD:       AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(1);
// VADD-NEXT: }

// MATMUL-LABEL: void matmul(GM_ADDR A, GM_ADDR B, GM_ADDR C) {
// MATMUL:       AscendC::SetFlag<AscendC::HardEvent::MTE1_MTE2>(0);
// MATMUL:       for (int64_t k = 0; k < 8; k += 1) {
// MATMUL-NEXT:    bool init = k == 0;
// The cube's operands: GM (ND) -> L1 (NZ), then one LoadData per 16-row block.
// MATMUL:         AscendC::DataCopy(a_l1[v * 8192], A_gm[k0], AscendC::Nd2NzParams(1, 128, 64, 0, 512, 128, 1, 0));
// MATMUL:         AscendC::DataCopy(b_l1[v * 8192], B_gm[k0 * 128], AscendC::Nd2NzParams(1, 64, 128, 0, 128, 64, 1, 0));
// MATMUL:         for (int64_t b = 0; b < 8; b += 1) {
// MATMUL-NEXT:      AscendC::LoadData(a_l0a[v * 8192 + b * 1024], a_l1[v * 8192 + b * 256], AscendC::LoadData2DParams(0, 4, 8, 0, 0, false, 0));
// MATMUL-NEXT:    }
// MATMUL:         for (int64_t b_1 = 0; b_1 < 4; b_1 += 1) {
// MATMUL-NEXT:      AscendC::LoadData(b_l0b[v * 8192 + b_1 * 2048], b_l1[v * 8192 + b_1 * 256], AscendC::LoadData2DParams(0, 8, 4, 0, 0, true, 0));
// MATMUL-NEXT:    }
// MATMUL:         AscendC::Mmad(c_l0c, a_l0a[v * 8192], b_l0b[v * 8192], AscendC::MmadParams(128, 128, 64, 0, false, init));
// MATMUL-NEXT:    AscendC::SetFlag<AscendC::HardEvent::M_MTE1>(v);
// MATMUL:       AscendC::SetFlag<AscendC::HardEvent::M_FIX>(0);
// MATMUL:       AscendC::WaitFlag<AscendC::HardEvent::M_FIX>(0);
// MATMUL-NEXT:  AscendC::Fixpipe(C_gm, c_l0c, AscendC::FixpipeParamsV220(128, 128, 128, 128, false));

// The mixed kernel: one entry point, an AIC section (the matmul, its fixpipe to the
// workspace W and the cross-core set on FIX) and an AIV section (the cross-core wait
// on MTE2, then bias + relu), each with its own buffers and scalar code.
// MIXED-LABEL: void matmul_bias_relu(GM_ADDR A, GM_ADDR B, GM_ADDR Bias, GM_ADDR W, GM_ADDR D) {
// MIXED-NEXT:    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
// MIXED-NEXT:    AscendC::TPipe pipe;
// MIXED:         if ASCEND_IS_AIC {
// MIXED-NEXT:      AscendC::TBuf<AscendC::TPosition::A1> a_l1_buf;
// MIXED-NOT:       VECCALC
// MIXED:           for (int64_t k = 0; k < 4; k += 1) {
// MIXED:             AscendC::Mmad(
// MIXED:           AscendC::Fixpipe(W_gm, c_l0c, AscendC::FixpipeParamsV220(128, 128, 128, 128, false));
// MIXED-NEXT:      AscendC::CrossCoreSetFlag<2, PIPE_FIX>(0);
// MIXED-NEXT:    }
// MIXED-NEXT:    if ASCEND_IS_AIV {
// MIXED-NEXT:      AscendC::TBuf<AscendC::TPosition::VECCALC> w_ub_buf;
// MIXED:           AscendC::Duplicate(zero_ub, (float)0.0, 2048);
// MIXED-NEXT:      AscendC::CrossCoreWaitFlag<2, PIPE_MTE2>(0);
// MIXED-NOT:       Mmad
// MIXED:           for (int64_t r = 0; r < 8; r += 1) {
// MIXED:             AscendC::DataCopy(w_ub[{{.*}}], W_gm[row * 128], 2048);
// MIXED:             AscendC::Add(d_ub[{{.*}}], w_ub[{{.*}}], bias_ub[{{.*}}], 2048);
// MIXED:             AscendC::Max(d_ub[{{.*}}], d_ub[{{.*}}], zero_ub, 2048);
// MIXED:           AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(1);
// MIXED-NEXT:    }
// MIXED-NEXT:  }
