"""Layer 0, pure: dtypes, shapes, errors, devices, the op record and stride arithmetic.

Nothing here knows about Tensor, grad mode or the tape; every layer above may import it.
"""
