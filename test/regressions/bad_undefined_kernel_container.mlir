// lowering-2026-12/bad_undefined_kernel_container.mlir: a gpu.launch_func of an
// undefined kernel container was first noticed by upstream MLIR.  gpu.launch_func's
// verifier checks the launched kernel as upstream's symbol verifier does, at the launch.
// RUN: %python %S/Inputs/exit_status.py 1 tilepipe compile %s --target sm_80 --emit ptx 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tile-opt %s -p lower-to-nvvm -t ptx 2>&1 | filecheck %s
// RUN: %python %S/Inputs/exit_status.py 1 tile-run %s 2>&1 | filecheck %s

// CHECK-NOT: upstream MLIR failed
// CHECK: bad_undefined_kernel_container.mlir:[[# @LINE + 4]]:3: error: 'gpu.launch_func' op kernel container 'kernels' is undefined
// CHECK-NOT: exit_status.py
func.func @on_stream(%stream: !llvm.ptr, %t: !gpu.async.token) {
  %c1 = arith.constant 1 : index
  gpu.launch_func [%t] <%stream : !llvm.ptr> @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  func.return
}
