"""Layer 3, the op front ends by family, and `methods.py`: the one table of Tensor methods.

Each front end checks its arguments as PyTorch does and applies registered ops
(`_pure/op.py`) through `_tape/record.apply`. The families, in import order (a module imports
only the ones before it): `factories` (creation from host data), `elementwise` (binary
arithmetic and the shared elementwise machinery), `unary`, `comparison` (comparisons,
clamp/where, logical and bitwise), `convert` (dtype/device casts, properties), `shape` (views,
reshape, cat/stack/split, flips), `index` (indexing, gather/scatter, masked and index_* ops),
`reduce` (reductions, scans, sort/topk), `linalg`, `random` (sampling and in-place random
fills), `fft` (the FFT kernels behind torch.fft).
"""
