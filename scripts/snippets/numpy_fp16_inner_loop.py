import numpy as np

u = np.random.default_rng(0).random((8192, 4))
x = u.astype(np.float16)
# one column, a strided 1-D view: float32 pairwise
print(float(x[:, 0].sum()))
# the same memory, transposed: still one row at a
# time into float16 results
print(x.T.sum(axis=1))
# float16 means accumulate in float32 on every axis
print(x.mean(axis=0))
# numpy#15785's own case: 3,000 ones, two ways
a = np.ones((3, 3000, 115), dtype=np.float16)
print(a[0, :, 110].sum(0), a[0].sum(0)[110])
