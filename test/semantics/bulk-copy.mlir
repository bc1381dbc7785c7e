// Bulk copies completing on mbarriers: race free and equal to the sequential loop.
// RUN: tile-run %S/Inputs/bulk_copy.mlir --check-races --compare-with %S/Inputs/sequential.mlir --index-arg n=0,3,17 | filecheck %s

// CHECK:      tile-run: n=0: outputs are identical (%A, %B, %C)
// CHECK-NEXT: tile-run: n=3: outputs are identical (%A, %B, %C)
// CHECK-NEXT: tile-run: n=17: outputs are identical (%A, %B, %C)
