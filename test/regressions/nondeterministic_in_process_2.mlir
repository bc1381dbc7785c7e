// RUN: env PYTHONHASHSEED=1 tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.1.mlir
// RUN: env PYTHONHASHSEED=2 tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: tile-opt %s -p "pipeline-validate,pipeline-planning,inject-software-pipeline,merge-shared-memory,async-copy,thread-sync" --print-op-generic -o %t.mlir
// RUN: tile-run %t.mlir --check-races --compare-with %s --quiet

// Fuzz regression (nondeterministic, seed 12105, sm_80): two compiles in one process
// gave different barriers and wait_group counts.  z3 queries shared z3's main
// context, where the terms of every earlier query shift the search, so whether a
// query finished within its resource limit depended on what the process had compiled
// before.  Each query now runs in a context of its own.  The in-process comparison is
// test/python/tools/test_determinism.py::test_two_compiles_in_one_process_agree.  (Static
// trip count: no %n.)

func.func @fuzz(%in14: memref<256xbf16>, %in17: memref<256x32xbf16>, %in20: memref<256xbf16>)
    attributes {tile.grid = array<i64: 2>, tile.threads = 64 : i64, tile.target = "sm_80"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %bid = tile.block_id x
  %s13 = memref.alloc() : memref<32xbf16, "shared">
  %s15 = memref.alloc() : memref<32x32xbf16, "local">
  %s16 = memref.alloc() : memref<32x32xbf16, "fragment">
  %s19 = memref.alloc() : memref<32xbf16, "shared">
  %slot0 = arith.muli %bid, %c4 : index
  pipeline.for %k0 = %c0 to %c4 step %c1 num_stages = 3 {
    %it0 = arith.addi %slot0, %k0 : index
    %o0_m = arith.muli %it0, %c32 : index
    %o0_n = arith.muli %it0, %c32 : index
    tile.copy<32> %in14[%o0_m] -> %s13 : memref<256xbf16> -> memref<32xbf16, "shared">
    tile.broadcast<32x32> %s13 -> %s15 axis 1 : memref<32xbf16, "shared"> -> memref<32x32xbf16, "local">
    tile.copy<32x32> %in17[%o0_m, %c0] -> %s16 : memref<256x32xbf16> -> memref<32x32xbf16, "fragment">
    tile.copy<32> %in20[%o0_n] -> %s19 : memref<256xbf16> -> memref<32xbf16, "shared">
    tile.broadcast<32x32> %s19 -> %s16 axis 0 : memref<32xbf16, "shared"> -> memref<32x32xbf16, "fragment">
  }
  func.return
}
