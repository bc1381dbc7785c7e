"""The Ascend vector add in TileLang's style: z = x + y on one vector core (AIV),
the Python form of examples/ascend_vadd.mlir.  Tiles of `block` halves stream
GM -> UB (MTE2), are added on the vector unit (V) and go back UB -> GM (MTE3);
num_stages=2 gives every UB buffer two slots, and tilepipe's ascend-* passes
synchronize the pipes with flag rings.  On Ascend, T.alloc_shared is UB (T.alloc_ub
says so explicitly).

    python examples/python/ascend_vadd.py
"""

import numpy as np

import tilepipe
import tilepipe.language as T


def vadd(N, block=256, num_stages=2, dtype="float16"):
    @T.prim_func
    def main(X: T.Tensor((N,), dtype), Y: T.Tensor((N,), dtype), Z: T.Tensor((N,), dtype)):
        with T.Kernel(1) as bx:
            x_ub = T.alloc_ub((block,), dtype)
            y_ub = T.alloc_ub((block,), dtype)
            z_ub = T.alloc_ub((block,), dtype)
            for i in T.Pipelined(T.ceildiv(N, block), num_stages=num_stages):
                T.copy(X[i * block], x_ub)
                T.copy(Y[i * block], y_ub)
                for j in T.Parallel(block):
                    z_ub[j] = x_ub[j] + y_ub[j]
                T.copy(z_ub, Z[i * block])

    return main


def main(N=4096, target="ascend910b"):
    kernel = tilepipe.compile(vadd(N), out_idx=[-1], target=target)
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, N).astype(np.float16)
    y = rng.uniform(-1, 1, N).astype(np.float16)
    z = kernel(x, y)
    np.testing.assert_array_equal(z, (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16))
    print(f"vector add {N} ({target}): matches numpy")


if __name__ == "__main__":
    main()
