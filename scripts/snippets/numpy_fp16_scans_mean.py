import numpy as np

x = np.random.default_rng(0).random(8192).astype(np.float16)
print(np.cumsum(x)[-1])           # every partial sum is an element of a float16 array
print(np.add.accumulate(x)[-1])   # the same scan, under its ufunc name
print(x.mean())                   # float16 means accumulate in float32, as NumPy documents
