// The Ascend examples through the whole pipeline, printed as AscendC that passes the
// syntax check against the declarations-only header.
// RUN: tile-opt %examples/ascend_vadd.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget -o %t.vadd.mlir
// RUN: %python -m tilepipe.lowering.ascendc %t.vadd.mlir --syntax-check | filecheck %s --check-prefix=VADD
// RUN: tile-opt %examples/ascend_matmul.mlir -p ascend-prepare-multi-buffer,ascend-resolve-core,ascend-insert-sync,ascend-materialize-multi-buffer,lower-to-ascend,ascend-flag-budget -o %t.mm.mlir
// RUN: %python -m tilepipe.lowering.ascendc %t.mm.mlir --syntax-check | filecheck %s --check-prefix=MATMUL

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
// MATMUL:         AscendC::LoadData(a_l0a[v * 8192], a_l1[v * 8192],
// MATMUL:         AscendC::Mmad(c_l0c, a_l0a[v * 8192], b_l0b[v * 8192], AscendC::MmadParams{128, 128, 64, {{.*}}, init});
// MATMUL-NEXT:    AscendC::SetFlag<AscendC::HardEvent::M_MTE1>(v);
// MATMUL:       AscendC::SetFlag<AscendC::HardEvent::M_FIX>(0);
// MATMUL:       AscendC::WaitFlag<AscendC::HardEvent::M_FIX>(0);
// MATMUL-NEXT:  AscendC::Fixpipe(C_gm, c_l0c, AscendC::FixpipeParamsV220{128, 128, 128, 128});
