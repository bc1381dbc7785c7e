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

// -----

// The launched kernel is checked as upstream's symbol verifier checks it, at the
// launch in the user's file (upstream saw it first, after lowering, before).
func.func @undefined_container(%stream: !llvm.ptr, %t: !gpu.async.token) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch_func' op kernel container 'kernels' is undefined}}
  gpu.launch_func [%t] <%stream : !llvm.ptr> @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}

// -----

func.func @kernels() {
  func.return
}
func.func @container_not_a_module() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch_func' op kernel module 'kernels' is undefined}}
  gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}

// -----

gpu.module @kernels {
  gpu.func @other() kernel {
    gpu.return
  }
}
func.func @undefined_kernel() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch_func' op kernel function '@kernels::@k' is undefined}}
  gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}

// -----

gpu.module @kernels {
  gpu.func @k() {
    gpu.return
  }
}
func.func @not_a_kernel() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch_func' op kernel function is missing the 'gpu.kernel' attribute}}
  gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}

// -----

gpu.module @kernels {
  gpu.func @k(%a: memref<4xf32>) kernel {
    gpu.return
  }
}
func.func @argument_count(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch_func' op got 2 kernel operands but expected 1}}
  gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>, %a : memref<4xf32>)
  func.return
}

// -----

gpu.module @kernels {
  gpu.func @k(%a: memref<4xf32>) kernel {
    gpu.return
  }
}
func.func @argument_type(%a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch_func' op type of function argument 0 does not match}}
  gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<8xf32>)
  func.return
}
