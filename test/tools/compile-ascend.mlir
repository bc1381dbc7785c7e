// tilepipe compile on an Ascend target: the ascend passes in the chapter's order, then
// AscendC (syntax-checked with g++ against the declarations-only kernel_operator.h).
// RUN: tilepipe compile %examples/ascend_vadd.mlir --target ascend910b --syntax-check -q | filecheck %s
// RUN: tilepipe compile %examples/ascend_vadd.mlir --target ascend -o /dev/null 2>&1 | filecheck %s --check-prefix=SUMMARY
// RUN: tilepipe compile %examples/ascend_matmul.mlir --target ascend910b --emit ascend -q | filecheck %s --check-prefix=DIALECT
// RUN: not tilepipe compile %examples/ascend_vadd.mlir --target ascend910b --emit ptx 2>&1 | filecheck %s --check-prefix=BAD

// CHECK:     extern "C" __global__ __aicore__ void vadd(
// CHECK:     AscendC::SetFlag<AscendC::HardEvent::MTE2_V>
// CHECK:     AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>

// SUMMARY:   @vadd on ascend910b
// SUMMARY:     versions: x_ub x2, y_ub x2, z_ub x2

// DIALECT:   ascend.mmad
// DIALECT:   ascend.set_flag

// BAD:       error: --emit ptx is not for target ascend910b (choose from scheduled, ascend, ascendc)
