// tile-opt reads back what it prints at every tile level of both flows: printing the
// parsed output again gives the same text, in custom and in generic form.  (The
// lowered levels: roundtrip-lowered-levels.mlir, so that lit runs the two halves side
// by side.)
//
// RUN: tile-opt %examples/gemm.mlir -o %t.tile
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning' -o %t.planned
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline' -o %t.scheduled
// RUN: tile-opt %examples/gemm.mlir -p 'pipeline-planning,inject-software-pipeline,merge-shared-memory' -o %t.arena
// RUN: tile-opt %examples/gemm.mlir -p '%{cuda:scheduled}' -o %t.synced
// RUN: tile-opt %t.tile | diff - %t.tile
// RUN: tile-opt %t.tile --mlir-print-op-generic | tile-opt | diff - %t.tile
// RUN: tile-opt %t.planned | diff - %t.planned
// RUN: tile-opt %t.planned --mlir-print-op-generic | tile-opt | diff - %t.planned
// RUN: tile-opt %t.scheduled | diff - %t.scheduled
// RUN: tile-opt %t.scheduled --mlir-print-op-generic | tile-opt | diff - %t.scheduled
// RUN: tile-opt %t.arena | diff - %t.arena
// RUN: tile-opt %t.arena --mlir-print-op-generic | tile-opt | diff - %t.arena
// RUN: tile-opt %t.synced | diff - %t.synced
// RUN: tile-opt %t.synced --mlir-print-op-generic | tile-opt | diff - %t.synced
