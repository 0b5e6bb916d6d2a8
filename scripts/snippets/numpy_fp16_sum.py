import numpy as np

x = np.random.default_rng(0).random(8192).astype(np.float16)
print(x.sum())  # float32 inside, blocked pairwise: close to the exact total
