"""Layer 3, the op front ends by family, and `methods.py`: the one table of Tensor methods.

Each front end checks its arguments as PyTorch does and applies registered ops
(`_pure/op.py`) through `_tape/record.apply`.
"""
