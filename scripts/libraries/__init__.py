"""The library rows run on this machine's CPU: PyTorch, JAX and MLX, in an environment of their own."""
