import numpy as np

u = np.random.default_rng(0).random(8192)
x = u.astype(np.float16)
# rounds to float16 after every addition: stalls
print(np.cumsum(x)[-1])
