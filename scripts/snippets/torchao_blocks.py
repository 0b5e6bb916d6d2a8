import numpy as np
import torch
from torchao.prototype.mx_formats.kernels import unpack_uint4
from torchao.prototype.mx_formats.mx_tensor import ScaleCalculationMode, to_mx
from torchao.prototype.mx_formats.nvfp4_tensor import nvfp4_quantize, per_tensor_amax_to_scale

# The page's inputs in FP32: uniform and normal (seed 71, as the error figures draw them, 8 rows of 64),
# the outlier figure's normal blocks (seed 83) with 64 or 2**22 as their first value, and edge blocks of 32.
outliers = np.random.default_rng(83).standard_normal((8, 32))
edges = np.array([
    [7.9] + [1.0] * 31,  # the clamp
    [2.0**-125] * 32, [2.0**-119] * 32, [2.0**-127] * 32,  # E8M0's smallest scale
    [1e-39] * 32, [1e-40] + [3e-42] * 31,  # FP32 subnormals
    [0.0] * 32,
    [1.0] * 16 + [3e-5] * 16,  # NVFP4: a block scale below E4M3's smallest normal
    [1.5118216276168823, 0.6299256682395935] + [0.5] * 30,  # NVFP4: 2.50000006 after the scales
    [-7.9] + [-1.0] * 31,
])
groups = {
    "uniform": np.random.default_rng(71).random((8, 64)),
    "normal": np.random.default_rng(71).standard_normal((8, 64)),
    "outlier64": np.concatenate([np.full((8, 1), 64.0), outliers[:, 1:]], axis=1),
    "outlier4194304": np.concatenate([np.full((8, 1), 2.0**22), outliers[:, 1:]], axis=1),
    "edges": edges,
}


def hexes(t: torch.Tensor) -> str:
    """The bytes of a tensor, row-major, as hex."""
    return str(t.contiguous().view(torch.uint8).numpy().tobytes().hex())


elements = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "e2m3": "fp6_e2m3",
            "e3m2": "fp6_e3m2", "e2m1": torch.float4_e2m1fn_x2}
modes = {"floor": ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1"], "ceil": ["e4m3", "e2m1"],
         "even": ["e4m3", "e2m1"], "rceil": ["e4m3", "e2m1"]}
for name, values in groups.items():
    x = torch.from_numpy(values.astype(np.float32))
    print("inputs", name, values.shape[1], hexes(x))
    for mode, names in modes.items():
        for element in names:
            scale, data = to_mx(x, elements[element], 32, ScaleCalculationMode[mode.upper()])
            if element == "e2m1":
                data = unpack_uint4(data)  # one 4-bit code a byte
            print("mx", mode, element, name, hexes(scale), hexes(data))
    # NVFP4: each row a tensor of its own, with its FP32 scale
    for row in x:
        t = per_tensor_amax_to_scale(row.abs().max())
        scales, data = nvfp4_quantize(row[None, :], 16, t)
        print("nvfp4", name, hexes(t.reshape(1)), hexes(scales), hexes(unpack_uint4(data)))
