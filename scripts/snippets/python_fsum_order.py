import math

big = 1e308
# the exact partial sum 2e308 is past the largest float
try:
    print(math.fsum([big, big, -big]))
except OverflowError as error:
    print("OverflowError:", error)
# the same values in another order: no overflow
print(math.fsum([big, -big, big]))
