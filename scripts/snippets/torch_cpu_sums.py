import numpy as np
import torch

u = np.random.default_rng(0).random(8192)
rows = np.random.default_rng(0).random((8192, 4))
for t in (torch.from_numpy(u.astype(np.float16)),
          torch.from_numpy(u).to(torch.bfloat16)):
    # sum, mean, and the last entry of cumsum
    print(t.sum().item(), t.mean().item(),
          t.cumsum(0)[-1].item())
# float16 down the columns: NumPy's axis trap
x = torch.from_numpy(rows.astype(np.float16))
print(x.sum(dim=0).tolist())
# float32 inside, in its own order: not the exact sum rounded once
for t in (torch.tensor([2048, 2**-14, -2048], dtype=torch.float16),
          torch.tensor([2**24, 1, -2**24], dtype=torch.bfloat16)):
    print(t.sum().item(), t.mean().item())
