import jax
import jax.numpy as jnp
import numpy as np

u = np.random.default_rng(0).random(8192)
for dtype in (jnp.float16, jnp.bfloat16):
    x = jnp.asarray(u, dtype=dtype)
    # jnp.sum, the lax primitive, cumsum's last entry
    print(jnp.sum(x), jax.lax.reduce_sum(x, (0,)),
          jnp.cumsum(x)[-1])
e = jnp.asarray(u, dtype=jnp.float8_e4m3fn)
# FP8: by default, then with a float32 accumulator
print(jnp.sum(e), jnp.sum(e, dtype=jnp.float32))
