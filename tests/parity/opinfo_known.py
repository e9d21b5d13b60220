"""What the database suites know in advance: the one list of skips (entry -> why it cannot
be replayed here), the xfails (entry -> what differs from PyTorch) and the entries
autograd_compat does not implement (strict xfails: a fixed entry fails the run until it is
taken off its list)."""

from __future__ import annotations

OP_SKIPS: dict[str, str] = {}
OP_WRONG: dict[str, str] = {}
OP_MISSING: set[str] = set()
# Ops whose values are random or unspecified: only shapes and dtypes are compared.
OP_UNDEFINED_VALUES: dict[str, str] = {}

MODULE_SKIPS: dict[str, str] = {}
MODULE_WRONG: dict[str, str] = {}
MODULE_MISSING: set[str] = set()

OPTIM_SKIPS: dict[str, str] = {
    "SparseAdam": "sparse: it steps only sparse gradients, and sparse tensors do not exist here",
}
OPTIM_WRONG: dict[str, str] = {}
OPTIM_MISSING: set[str] = set()
