import numpy as np

u = np.random.default_rng(0).random((8192, 4))
x = u.astype(np.float16)
# down each column: a float16 result updated row by row
print(x.sum(axis=0))
# the same call on the same values, stored column by column
print(np.asfortranarray(x).sum(axis=0))
# down each column, accumulating in float32
print(x.sum(axis=0, dtype=np.float32))
