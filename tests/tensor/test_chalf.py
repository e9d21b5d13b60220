"""Tensor.chalf exists as in PyTorch, and raises naming itself: complex32 has no JAX dtype."""

from __future__ import annotations

import pytest

import autograd_compat as ac


def test_chalf_raises_naming_it_and_the_missing_dtype():
    with pytest.raises(NotImplementedError, match=r"Tensor\.chalf: torch\.complex32"):
        ac.ones(2).chalf()
