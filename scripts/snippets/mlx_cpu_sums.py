import mlx.core as mx
import numpy as np

u = np.random.default_rng(0).random(8192)
half = mx.array(u.astype(np.float16))
bf16 = mx.array(u.astype(np.float32)).astype(mx.bfloat16)
for x in (half, bf16):
    # sum, mean, and the last entry of cumsum
    print(mx.sum(x).item(), mx.mean(x).item(),
          mx.cumsum(x)[-1].item())
# float32 inside, in its own order: not the exact sum rounded once
for x in (mx.array([2048, 2**-14, -2048], dtype=mx.float16),
          mx.array([2**24, 1, -2**24], dtype=mx.bfloat16)):
    print(mx.sum(x).item(), mx.mean(x).item())
