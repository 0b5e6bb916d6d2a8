import numpy as np

u = np.random.default_rng(0).random(8192)
x = u.astype(np.float16)
# float32 inside, blocked pairwise: close to the exact total
print(x.sum())
