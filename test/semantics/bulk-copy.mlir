// Bulk copies completing on mbarriers: race free and equal to the sequential loop.
// RUN: tile-run %S/Inputs/bulk_copy.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=0 | filecheck %s
// RUN: tile-run %S/Inputs/bulk_copy.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=3 | filecheck %s
// RUN: tile-run %S/Inputs/bulk_copy.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=17 | filecheck %s

// CHECK: tile-run: outputs are identical (%A, %B, %C)
