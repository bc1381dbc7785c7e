// RUN: %python -m tilepipe.drivers.ascendc %s --syntax-check | filecheck %s
// The lock primitive comes from the target record: the 910B class reaches the lock
// pool through get_buf/rls_buf (asc_lock is documented for the Ascend 950 only), the
// 950 class through asc_lock/asc_unlock.  Both forms pass the syntax check against
// the declarations of the real API.

// CHECK-LABEL: void spill_910b(
// CHECK:         get_buf(PIPE_MTE2, 3, true);
// CHECK-NEXT:    rls_buf(PIPE_MTE2, 3, true);
// CHECK-NEXT:    get_buf(PIPE_V, 3, false);
// CHECK-NEXT:    rls_buf(PIPE_V, 3, false);
func.func @spill_910b() attributes {tile.target = "ascend910b"} {
  ascend.get_buf[MTE2] 3 non_block
  ascend.rls_buf[MTE2] 3 non_block
  ascend.get_buf[V] 3 block
  ascend.rls_buf[V] 3 block
  func.return
}

// CHECK-LABEL: void spill_950(
// CHECK:         asc_lock(PIPE_MTE2, 3, ASC_LOCK_NON_BLOCK);
// CHECK-NEXT:    asc_unlock(PIPE_MTE2, 3, ASC_LOCK_NON_BLOCK);
// CHECK-NEXT:    asc_lock(PIPE_V, 3, ASC_LOCK_BLOCK);
// CHECK-NEXT:    asc_unlock(PIPE_V, 3, ASC_LOCK_BLOCK);
func.func @spill_950() attributes {tile.target = "ascend950"} {
  ascend.get_buf[MTE2] 3 non_block
  ascend.rls_buf[MTE2] 3 non_block
  ascend.get_buf[V] 3 block
  ascend.rls_buf[V] 3 block
  func.return
}
