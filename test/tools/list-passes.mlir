// RUN: tile-opt --list-passes | filecheck %s
// CHECK:      tilepipe passes:
// CHECK-DAG:    async-copy
// CHECK-DAG:    inject-software-pipeline
// CHECK-DAG:    merge-shared-memory
// CHECK-DAG:    pipeline-planning
// CHECK-DAG:    pipeline-validate
// CHECK-DAG:    thread-sync
// CHECK-DAG:    tma-copy
// CHECK-DAG:    lower-to-nvvm
// CHECK-DAG:    ascend-insert-sync
// CHECK:      xDSL passes
