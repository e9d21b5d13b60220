"""torch.compile on XLA: a call of a compiled function or module is one jitted program.

`capture.py` finds the tensors a traced call touches besides its arguments; `function.py`
compiles a function (guards, the traced op, write-back, graph breaks); `module.py` wraps a
module as PyTorch's `OptimizedModule`; `api.py` is `torch.compile` and `torch.compiler`.
"""
