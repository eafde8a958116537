"""Primitives: the only place where NumPy does arithmetic. Each is forward + differentiable backward."""
