import numpy as np

u = np.random.default_rng(0).random(8192)
x = u.astype(np.float16)
# every partial sum is an element of a float16 array
print(np.cumsum(x)[-1])
# the same scan, under its ufunc name
print(np.add.accumulate(x)[-1])
# float16 means accumulate in float32, as NumPy documents
print(x.mean())
