"""The nn op front ends, one module per family; `nn/functional.py` re-exports them.

Each module holds its family's pure JAX functions, their registrations and the front ends
(PyTorch's argument checks, then one `apply`). Fusing a layer into one op (a whole conv, a whole
cross-entropy) keeps the graph small, so a training step is a handful of XLA calls. Where JAX's
derivative differs from PyTorch's (binary cross-entropy at 0 and 1, softplus past its threshold),
the pure function is fixed with `jax.custom_jvp` or a double-`where`, never a hand-written backward.
"""
