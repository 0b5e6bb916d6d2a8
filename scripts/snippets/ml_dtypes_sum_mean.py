import ml_dtypes
import numpy as np

u = np.random.default_rng(0).random(8192)
for dtype in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn):
    x = u.astype(dtype)
    # naive in the type, the same then divided, float32
    print(x.sum(), x.mean(), x.sum(dtype=np.float32))
