"""transformers' save_pretrained/from_pretrained under the alias (safetensors files, a model
built on the meta device and filled from them), against real PyTorch."""

import importlib.util

import pytest

# Looked up, not imported: in pytest's process the import loads real torch (peft's loads
# torchvision too, whose compiled ops fail to load here: importorskip skipped the test).
if importlib.util.find_spec("transformers") is None:
    pytest.skip("transformers is not installed", allow_module_level=True)


def test_gpt2_save_and_from_pretrained(both):
    ours = both("transformers_from_pretrained.py")
    assert ours["meta"] == [] and ours["same"] is True and ours["tied"] is True
