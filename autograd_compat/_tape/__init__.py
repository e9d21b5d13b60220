"""Layer 2, tape: recording op applications, shared memory and in-place commits, the
backward engine, hooks and anomaly mode.

Imports `_pure` and `_state`; the op front ends (`_ops`) and the public API build on it.
"""
