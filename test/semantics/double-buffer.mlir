// The hand-scheduled double-buffered loop is race free and computes exactly what the
// sequential loop computes, for trip counts below, at and above its depth.
// RUN: tile-run %S/Inputs/double_buffer.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=0,2 | filecheck %s --check-prefix=SWEEP
// RUN: tile-run %S/Inputs/double_buffer.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=17 --seed 7 | filecheck %s

// CHECK: tile-run: outputs are identical (%A, %B, %C)
// SWEEP:      tile-run: n=0: outputs are identical (%A, %B, %C)
// SWEEP-NEXT: tile-run: n=2: outputs are identical (%A, %B, %C)
