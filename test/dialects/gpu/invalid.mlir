// Malformed gpu.launch_func (upstream's custom form) is a located parse error.
// RUN: tile-opt %s --split-input-file --verify-diagnostics

func.func @two_sizes() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{expected three blocks sizes (x, y, z)}}
  gpu.launch_func @kernels::@k blocks in (%c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}

// -----

func.func @no_kernel_symbol() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{expected the kernel's symbol, e.g. @module::@kernel}}
  gpu.launch_func "k" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}
