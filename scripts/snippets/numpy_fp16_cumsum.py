import numpy as np

x = np.random.default_rng(0).random(8192).astype(np.float16)
print(np.cumsum(x)[-1])  # rounds to float16 after every addition: stalls
