"""Layer 0.5, deferral: runs of eager ops on small arrays batched into one XLA call.

It imports only `_pure`; `_state` and the layers above import it.
"""
