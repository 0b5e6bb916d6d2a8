import math

# 1.0 is half the gap between floats near 1e16
values = [1e16, 1.0, -1e16]
# a plain running sum before Python 3.12, compensated
# (Neumaier) from 3.12 on
print(sum(values))
# correctly rounded: no partial sum overflows here
print(math.fsum(values))
