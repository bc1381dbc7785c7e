// RUN: tile-opt %s --split-input-file --verify-diagnostics -p ascend-flag-budget

func.func @unbounded_id(%id: index) attributes {tile.target = "ascend910b"} {
  // expected-error @+1 {{cannot bound this event id}}
  ascend.set_flag[MTE2, V] %id
  ascend.wait_flag[MTE2, V] 0
  func.return
}

// -----

func.func @cross_core_over_budget(%i: index) attributes {tile.target = "ascend910b"} {
  %c4 = arith.constant 4 : index
  %c14 = arith.constant 14 : index
  %r = arith.remui %i, %c4 : index
  %id = arith.addi %r, %c14 : index
  // expected-error @+1 {{cross-core flag ids [14, 17] exceed the 16 cross-core flags of ascend910b}}
  ascend.cross_core_set_flag[2, FIX] %id
  func.return
}

// -----

// Five hard events, each with one ring of 9 ids: no ring fits 8 slots, so all
// 5 x 9 = 45 ids spill, more than the 32 slots of the lock pool.
// expected-error @+1 {{spilled flags need 45 lock slots but the pool has 32}}
func.func @lock_pool_exhausted(%i: index) attributes {tile.target = "ascend910b"} {
  %c9 = arith.constant 9 : index
  %r = arith.remui %i, %c9 : index
  ascend.set_flag[MTE2, V] %r
  ascend.set_flag[V, MTE3] %r
  ascend.set_flag[MTE3, V] %r
  ascend.set_flag[V, MTE2] %r
  ascend.set_flag[MTE2, MTE3] %r
  func.return
}
