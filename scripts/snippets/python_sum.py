import math

values = [1e16, 1.0, -1e16]  # 1.0 is half the gap between floats near 1e16
print(sum(values))           # a plain running sum before Python 3.12, compensated (Neumaier) from 3.12 on
print(math.fsum(values))     # correctly rounded in every version
