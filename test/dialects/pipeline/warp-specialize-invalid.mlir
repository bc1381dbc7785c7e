// The pipeline.warp_specialize verifier: whole producer warpgroups, setmaxnreg
// budgets (multiples of 8 in [24, 256]) that fit the register file together, one
// split at the top of its kernel, and no block-wide barrier inside a role (the other
// role never reaches it: the chapter's 8.3 "double barrier" failure mode deadlocks).
// RUN: tile-opt %s --split-input-file --verify-diagnostics

func.func @partial_warpgroup() attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  // expected-error @+1 {{producer_threads must be whole warpgroups (128 threads), got 96}}
  pipeline.warp_specialize producer_threads = 96 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
    %p = arith.constant 0 : index
  } consumer {
    %c = arith.constant 0 : index
  }
  func.return
}

// -----

func.func @odd_budget() attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  // expected-error @+1 {{consumer_registers must be a multiple of 8 in [24, 256], got 250}}
  pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 250 : i64 producer {
    %p = arith.constant 0 : index
  } consumer {
    %c = arith.constant 0 : index
  }
  func.return
}

// -----

func.func @over_the_register_file() attributes {tile.threads = 384 : i64, tile.target = "sm_90a"} {
  // expected-error @+1 {{the roles' register budgets need 95232 registers (128 x 24 + 384 x 240), the register file has 65536}}
  pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
    %p = arith.constant 0 : index
  } consumer {
    %c = arith.constant 0 : index
  }
  func.return
}

// -----

func.func @consumers_not_warpgroups() attributes {tile.threads = 96 : i64, tile.target = "sm_90a"} {
  // expected-error @+1 {{the kernel's 96 threads (the consumers) are not whole warpgroups}}
  pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
    %p = arith.constant 0 : index
  } consumer {
    %c = arith.constant 0 : index
  }
  func.return
}

// -----

func.func @block_barrier_in_a_role() attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  // expected-error @+1 {{a block-wide barrier inside a warp-specialized region deadlocks}}
  pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
    %p = arith.constant 0 : index
  } consumer {
    pipeline.barrier
  }
  func.return
}

// -----

func.func @inside_a_loop(%n: index) attributes {tile.threads = 128 : i64, tile.target = "sm_90a"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{expected at the top level of its kernel (the roles split the whole block once)}}
    pipeline.warp_specialize producer_threads = 128 : i64, producer_registers = 24 : i64, consumer_registers = 240 : i64 producer {
      %p = arith.constant 0 : index
    } consumer {
      %c = arith.constant 0 : index
    }
  }
  func.return
}
