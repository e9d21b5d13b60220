"""Layer 0, pure: dtypes, shapes, errors, devices, the op record and stride arithmetic.

Nothing here knows about Tensor, grad mode, deferral or the tape; every layer above may import
it. What it keeps between calls are caches whose entries never change a result (jitted
functions, constants, shapes), the op registry filled at import, and two pieces of runtime
state `tests/test_layering.py` names: the bound on compiled programs (`executables`) and the
thread's `with torch.device(...)` blocks (`device`).
"""
