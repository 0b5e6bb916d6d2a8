import mlx.core as mx
import numpy as np

u = np.random.default_rng(0).random(8192)
half = mx.array(u.astype(np.float16))
bf16 = mx.array(u.astype(np.float32)).astype(mx.bfloat16)
for x in (half, bf16):
    # sum, mean, and the last entry of cumsum
    print(mx.sum(x).item(), mx.mean(x).item(),
          mx.cumsum(x)[-1].item())
