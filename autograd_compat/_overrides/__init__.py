"""The `__torch_function__` dispatch of the public functions: which ones (`registry`) and the
switch that makes them dispatch once something can override (`install`)."""
