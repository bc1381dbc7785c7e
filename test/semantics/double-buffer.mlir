// The hand-scheduled double-buffered loop is race free and computes exactly what the
// sequential loop computes, for trip counts below, at and above its depth.
// RUN: tile-run %S/Inputs/double_buffer.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=0 | filecheck %s
// RUN: tile-run %S/Inputs/double_buffer.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=2 | filecheck %s
// RUN: tile-run %S/Inputs/double_buffer.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=17 --seed 7 | filecheck %s

// CHECK: tile-run: outputs are identical (%A, %B, %C)
