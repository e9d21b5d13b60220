"""The real-model benchmark's models (`bench/real_models.py`, ordinary PyTorch code) give
PyTorch's losses under the alias: one training step of each, on both libraries, compared.
Nothing is timed here."""

from __future__ import annotations

import contextlib
import importlib
import sys

import numpy as np

import autograd_compat
from tests._helpers.paths import ROOT


def _losses(monkeypatch, aliased: bool) -> dict:
    """Each model's first loss, with `import torch` bound to this library (`aliased`) or to
    PyTorch: the module is imported afresh, as each benchmark column's process does."""
    with monkeypatch.context() as patch:
        patch.setattr(sys, "path", [str(ROOT / "bench"), *sys.path])
        for name in ("real_models", "common"):  # bound to one library's torch at import
            patch.delitem(sys.modules, name, raising=False)
        with autograd_compat.alias_torch() if aliased else contextlib.nullcontext():
            real_models = importlib.import_module("real_models")
            losses = {}
            for model in real_models.MODELS:
                step = real_models.build(model).train_step
                losses[model] = step().item()
        for name in ("real_models", "common"):
            sys.modules.pop(name, None)
    return losses


def test_benchmark_models_give_pytorch_losses_under_the_alias(real_torch, monkeypatch):
    theirs = _losses(monkeypatch, aliased=False)
    ours = _losses(monkeypatch, aliased=True)
    assert ours.keys() == theirs.keys() == {"gpt", "mnist", "lstm", "resnet"}
    for model, expected in theirs.items():
        np.testing.assert_allclose(ours[model], expected, rtol=2e-4, err_msg=model)
