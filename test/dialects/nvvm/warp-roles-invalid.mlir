// setmaxnreg takes a register count that is a multiple of 8 in [24, 256].
// RUN: tile-opt %s --split-input-file --verify-diagnostics

func.func @odd_count() {
  // expected-error @+1 {{the register count must be a multiple of 8 in [24, 256], got 250}}
  nvvm.setmaxregister increase 250
  func.return
}

// -----

func.func @below_the_floor() {
  // expected-error @+1 {{the register count must be a multiple of 8 in [24, 256], got 16}}
  nvvm.setmaxregister decrease 16
  func.return
}
