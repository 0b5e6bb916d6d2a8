import ml_dtypes
import numpy as np

u = np.random.default_rng(0).random(8192)
x = u.astype(ml_dtypes.bfloat16)
print(x.sum())  # naive, in bfloat16: stalls at 256
