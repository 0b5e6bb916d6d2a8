import ml_dtypes
import numpy as np

x = np.random.default_rng(0).random(8192).astype(ml_dtypes.bfloat16)
print(x.sum(dtype=np.float32))  # accumulate in float32
