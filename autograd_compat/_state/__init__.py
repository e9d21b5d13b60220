"""Layer 1, state: grad and autograd modes, the Tensor record, graph nodes, the PRNG.

Imports only `_pure`. What a Tensor can do beyond its own fields is bound later, in one
table (`_ops/methods.py`).
"""
