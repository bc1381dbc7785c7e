// The sync report lists every inserted sync point with the hazards it covers and the
// totals the chapter's criterion is checked against (§5.3).

// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline,async-copy,thread-sync{report=text}' 2>&1 >/dev/null | filecheck %s
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline,async-copy,thread-sync{report=json}' 2>&1 >/dev/null | filecheck %s --check-prefix=JSON

// CHECK-LABEL: sync report for @gemm:
// CHECK-NEXT:    wait_group 1 before 'pipeline.async_copy' at {{.*}} (steady state)
// CHECK:           covers RAW pipeline.async_copy {{.*}} -> tile.gemm {{.*}} on %A_s, 2 iteration(s) later
// CHECK:         barrier before 'pipeline.async_copy' at {{.*}} (steady state)
// CHECK-DAG:       covers RAW pipeline.async_copy {{.*}} -> tile.gemm {{.*}} on %A_s, 2 iteration(s) later
// CHECK-DAG:       covers WAR tile.gemm {{.*}} -> pipeline.async_copy {{.*}} on %A_s, 1 iteration(s) later
// CHECK-DAG:       covers WAR tile.gemm {{.*}} -> pipeline.async_copy {{.*}} on %B_s, 1 iteration(s) later
// CHECK:         wait_group 0 before 'tile.gemm' at {{.*}} (prologue/epilogue)
// CHECK:         barrier before 'tile.gemm' at {{.*}} (prologue/epilogue)
// CHECK:         totals: 1 barrier(s) in the steady state, 1 in prologue/epilogue, 2 wait(s) [1, 0], {{[0-9]+}} hazard(s); {{[0-9]+}} queries ({{[0-9]+}} by Z3), {{[0-9]+}} cache hits

// JSON:      "function": "gemm"
// JSON:      "kind": "wait_group"
// JSON-NEXT: "before": "pipeline.async_copy"
// JSON:      "in_loop": true,
// JSON-NEXT: "pending": 1,
// JSON:      "barriers_in_steady_state": 1,
// JSON-NEXT: "barriers_in_prologue_epilogue": 1,
// JSON-NEXT: "waits": 2,
// JSON:      "optimal_cover": true
