"""transformers' save_pretrained/from_pretrained under the alias (safetensors files, a model
built on the meta device and filled from them), against real PyTorch."""

import pytest

pytest.importorskip("transformers")


def test_gpt2_save_and_from_pretrained(both):
    ours = both("transformers_from_pretrained.py")
    assert ours["meta"] == [] and ours["same"] is True and ours["tied"] is True
