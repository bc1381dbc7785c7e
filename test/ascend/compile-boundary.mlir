// Boundary tiles in AscendC (docs/ascend.md, "Dynamic shapes and boundary tiles"): the
// sizes of dynamic GM dimensions are kernel parameters, a ragged copy moves its valid
// rows and columns on its own pipe, and what DataCopyPad leaves unwritten in a UB
// tile (past each row's 32-byte block, rows past the array) is zeroed on the vector
// pipe after the copy's MTE2 -> V wait, later copy first.  The flags are those of the
// static examples/ascend_vadd.mlir: one sync point of 2 ids per hard event.
// RUN: tilepipe compile %S/Inputs/vadd_dynamic.mlir --target ascend910b --syntax-check -o %t.vadd.cpp 2>&1 | filecheck %s --check-prefix=FLAGS
// RUN: filecheck %s --check-prefix=VADD < %t.vadd.cpp
// RUN: tilepipe compile %S/Inputs/vmax_2d_dynamic.mlir --target ascend910b --syntax-check -o %t.vmax.cpp
// RUN: filecheck %s --check-prefix=VMAX < %t.vmax.cpp
// RUN: tilepipe compile %S/Inputs/leading_unit_dim_dynamic.mlir --target ascend910b --syntax-check -o %t.lead.cpp
// RUN: filecheck %s --check-prefix=LEAD < %t.lead.cpp
// RUN: tilepipe compile %S/Inputs/matmul_dynamic.mlir --target ascend910b --syntax-check -o %t.mm.cpp
// RUN: filecheck %s --check-prefix=MATMUL < %t.mm.cpp
// RUN: tile-run %S/Inputs/matmul_dynamic.mlir --shape A=130x77 --shape B=77x129 --shape C=130x129 --check-races --quiet

// FLAGS:      syntax check: passed
// FLAGS:      V_MTE2: 1 sync points, 2 of 8 ids
// FLAGS-NEXT: MTE3_V: 1 sync points, 2 of 8 ids
// FLAGS-NEXT: MTE2_V: 1 sync points, 2 of 8 ids
// FLAGS-NEXT: V_MTE3: 1 sync points, 2 of 8 ids

// VADD-LABEL: void vadd(GM_ADDR x, GM_ADDR y, GM_ADDR z, int64_t x_size0, int64_t y_size0, int64_t z_size0) {
// VADD:         int64_t n = x_size0;
// VADD:         AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(v);
// VADD-NEXT:    int64_t x_valid0 = x_size0 - off < 0 ? 0 : (x_size0 - off > 256 ? 256 : x_size0 - off);
// VADD-NEXT:    int64_t padded_bytes = (x_valid0 * 2 + 31) / 32 * 32;
// VADD-NEXT:    if (x_valid0 > 0) {
// VADD-NEXT:      AscendC::DataCopyPad(x_ub[v * 256], x_gm[off], AscendC::DataCopyExtParams(1, x_valid0 * 2, 0, (512 - padded_bytes) / 32, 0), AscendC::DataCopyPadExtParams<half>(true, 0, (padded_bytes - x_valid0 * 2) / 2, 0));
// VADD-NEXT:    }
// VADD:         AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(v);
// VADD-NEXT:    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(v);
// VADD-NEXT:    int64_t y_valid0_1 = y_size0 - off < 0 ? 0 : (y_size0 - off > 256 ? 256 : y_size0 - off);
// VADD-NEXT:    int64_t y_tail = (y_valid0_1 * 2 + 31) / 32 * 32 / 2;
// VADD-NEXT:    if (y_tail < 256) {
// VADD-NEXT:      AscendC::Duplicate(y_ub[v * 256 + y_tail], (half)0, 256 - y_tail);
// VADD-NEXT:    }
// VADD-NEXT:    int64_t x_valid0_1 = x_size0 - off < 0 ? 0 : (x_size0 - off > 256 ? 256 : x_size0 - off);
// VADD-NEXT:    int64_t x_tail = (x_valid0_1 * 2 + 31) / 32 * 32 / 2;
// VADD-NEXT:    if (x_tail < 256) {
// VADD-NEXT:      AscendC::Duplicate(x_ub[v * 256 + x_tail], (half)0, 256 - x_tail);
// VADD-NEXT:    }
// VADD-NEXT:    AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(v);
// VADD-NEXT:    AscendC::Add(z_ub[v * 256], x_ub[v * 256], y_ub[v * 256], 256);
// VADD:         AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(v);
// VADD-NEXT:    int64_t z_valid0 = z_size0 - off < 0 ? 0 : (z_size0 - off > 256 ? 256 : z_size0 - off);
// VADD-NEXT:    int64_t padded_bytes_2 = (z_valid0 * 2 + 31) / 32 * 32;
// VADD-NEXT:    if (z_valid0 > 0) {
// VADD-NEXT:      AscendC::DataCopyPad(z_gm[off], z_ub[v * 256], AscendC::DataCopyExtParams(1, z_valid0 * 2, (512 - padded_bytes_2) / 32, 0, 0));
// VADD-NEXT:    }
// VADD-NEXT:    AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(v);

// A 2-d tile: the tail of each valid row, then the rows past the array.
// VMAX-LABEL: void vmax2d(
// VMAX:         int64_t x_tail = (x_valid1_1 * 2 + 31) / 32 * 32 / 2;
// VMAX-NEXT:    if (x_tail < 48) {
// VMAX-NEXT:      for (int64_t row_1 = 0; row_1 < x_valid0_1; ++row_1) {
// VMAX-NEXT:        AscendC::Duplicate(x_ub[v * 768 + row_1 * 48 + x_tail], (half)0, 48 - x_tail);
// VMAX-NEXT:      }
// VMAX-NEXT:    }
// VMAX-NEXT:    if (x_valid0_1 < 16) {
// VMAX-NEXT:      AscendC::Duplicate(x_ub[v * 768 + x_valid0_1 * 48], (half)0, (16 - x_valid0_1) * 48);
// VMAX-NEXT:    }
// VMAX-NEXT:    AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(v);
// VMAX-NEXT:    AscendC::Max(

// A leading unit dimension past the array leaves no valid row: the copy moves
// nothing and the zero_tail zeroes the whole tile (the GM read stays in bounds).
// LEAD-LABEL: void lead(
// LEAD:         int64_t x_valid1 = x_size1 - 0 < 0 ? 0 : (x_size1 - 0 > 16 ? 16 : x_size1 - 0);
// LEAD-NEXT:    int64_t x_valid2 = 64 - 0 < 0 ? 0 : (64 - 0 > 64 ? 64 : 64 - 0);
// LEAD-NEXT:    if (b >= x_size0) {
// LEAD-NEXT:      x_valid1 = 0;
// LEAD-NEXT:    }
// LEAD-NEXT:    int64_t padded_bytes
// LEAD-NEXT:    if (x_valid1 > 0 && x_valid2 > 0) {
// LEAD-NEXT:      AscendC::DataCopyPad(

// MATMUL-LABEL: void matmul(GM_ADDR A, GM_ADDR B, GM_ADDR C, int64_t A_size0, int64_t A_size1, int64_t B_size0, int64_t B_size1, int64_t C_size0, int64_t C_size1) {
// MATMUL:         int64_t bx = AscendC::GetBlockIdx() % gx;
// MATMUL-NEXT:    int64_t by = AscendC::GetBlockIdx() / gx % gy;
// MATMUL:         int64_t A_valid0 = A_size0 - m0 < 0 ? 0 : (A_size0 - m0 > 128 ? 128 : A_size0 - m0);
// MATMUL-NEXT:    int64_t A_valid1 = A_size1 - k0 < 0 ? 0 : (A_size1 - k0 > 64 ? 64 : A_size1 - k0);
// MATMUL-NEXT:    AscendC::InitConstValue(a_l1[v * 8192], AscendC::InitConstValueParams<half>(1, 512, 0, 0));
// MATMUL-NEXT:    if (A_valid0 > 0 && A_valid1 > 0) {
// MATMUL-NEXT:      AscendC::DataCopy(a_l1[v * 8192], A_gm[m0 * A_size1 + k0], AscendC::Nd2NzParams(1, A_valid0, A_valid1, 0, A_size1, 128, 1, 0));
// MATMUL-NEXT:    }
// MATMUL:         if (C_valid0 > 0 && C_valid1 > 0) {
// MATMUL-NEXT:      AscendC::Fixpipe(C_gm[m0 * C_size1 + n0], c_l0c, AscendC::FixpipeParamsV220(C_valid1, C_valid0, 128, C_size1, false));
// MATMUL-NEXT:    }
