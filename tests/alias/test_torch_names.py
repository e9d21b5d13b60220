"""autograd_compat/_torch_names.json lists what real PyTorch's modules have (see
tests/_helpers/torch_names.py), and a name PyTorch lacks raises PyTorch's own AttributeError."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers import torch_names


def test_the_checked_in_names_are_those_of_the_installed_pytorch(real_torch):
    assert torch_names.FILE.read_text() == torch_names.render(), (
        "autograd_compat/_torch_names.json is stale: run `python -m tests._helpers.torch_names`"
    )


@pytest.mark.parametrize(
    ("module", "name"),
    [("", "sq"), ("nn.functional", "relu_squared"), ("optim", "Adamm")],
)
def test_a_name_pytorch_lacks_gets_pytorchs_message(real_torch, module, name):
    ours, theirs = autograd_compat, real_torch
    for part in filter(None, module.split(".")):
        ours, theirs = getattr(ours, part), getattr(theirs, part)
    with pytest.raises(AttributeError) as expected:
        getattr(theirs, name)
    with pytest.raises(AttributeError) as actual:
        getattr(ours, name)
    assert str(actual.value) == str(expected.value)
