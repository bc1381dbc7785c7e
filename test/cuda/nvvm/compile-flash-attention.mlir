// tilepipe compile takes the flash-attention example from tile level to PTX for
// sm_80 (cp.async groups) and sm_90 (bulk copies on mbarriers); ptxas must accept it.

// RUN: tilepipe compile %examples/flash_attention.mlir --target sm_80 -o %t.sm80.ptx 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: filecheck %s --check-prefix=PTX80 < %t.sm80.ptx
// RUN: tilepipe compile %examples/flash_attention.mlir --target sm_90 -q -o %t.sm90.ptx
// RUN: filecheck %s --check-prefix=PTX90 < %t.sm90.ptx

// SUMMARY:      tilepipe compile {{.*}}flash_attention.mlir --target sm_80
// SUMMARY:        inject-software-pipeline {{.*}} versions: Q_s x1, K_s x2, V_s x2
// SUMMARY:        lower-to-nvvm {{.*}} gpu.func @flash_attention (128 threads,
// SUMMARY:        ptxas {{.*}} accepted
// SUMMARY:        kernel @flash_attention: {{[0-9]+}} registers, {{.*}} (sm_80)

// S = Q·K^T and O += P·V on tensor cores, rows reduced by quad shuffles, the
// exponentials and the final division in f32.
// PTX80:      .target sm_80
// PTX80:      .visible .entry flash_attention(
// PTX80:      cp.async.cg.shared.global
// PTX80:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX80:      shfl.sync.bfly.b32
// PTX80:      ex2.approx
// PTX80:      div.rn.f32

// PTX90:      .target sm_90
// PTX90:      cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX90:      mbarrier.try_wait.parity.shared.b64
// PTX90:      mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
