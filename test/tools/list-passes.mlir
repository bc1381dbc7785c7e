// RUN: tile-opt --list-passes | filecheck %s
// Options follow their pass, spelled as a pipeline takes them, with their defaults:
// RUN: tile-opt --list-passes | grep -A1 "^  lower-to-nvvm " | filecheck %s --check-prefix=OPTIONS
// OPTIONS:      lower-to-nvvm
// OPTIONS-NEXT:   options: swizzle-shared=true
// CHECK:      tilepipe passes:
// CHECK-DAG:    async-copy
// CHECK-DAG:    inject-software-pipeline
// CHECK-DAG:    merge-shared-memory
// CHECK-DAG:    pipeline-planning
// CHECK-DAG:    pipeline-validate
// CHECK-DAG:    thread-sync
// CHECK-DAG:    tma-copy
// CHECK-DAG:    lower-to-nvvm
// CHECK-DAG:    schedule-sim
// CHECK-DAG:    ascend-insert-sync
// CHECK:      xDSL passes
