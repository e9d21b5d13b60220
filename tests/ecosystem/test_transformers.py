"""Hugging Face transformers models under the alias, against real PyTorch."""

import pytest

pytest.importorskip("transformers")


def test_gpt2_train_step_and_generate(both):
    ours = both("transformers_gpt2.py")
    assert len(ours["generated"][0]) == 14
