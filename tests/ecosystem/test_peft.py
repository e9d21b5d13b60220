"""peft LoRA on a tiny GPT-2 under the alias, against real PyTorch."""

import importlib.util

import pytest

# Looked up, not imported: in pytest's process the import loads real torch (peft's loads
# torchvision too, whose compiled ops fail to load here: importorskip skipped the test).
if importlib.util.find_spec("peft") is None:
    pytest.skip("peft is not installed", allow_module_level=True)


def test_lora_gpt2_train_save_and_reload(both):
    ours = both("peft_lora_gpt2.py", ".", rtol=1e-4, atol=1e-5)
    assert ours["frozen_unchanged"] is True
    assert len(ours["trainable"]) == 4  # lora_A and lora_B of c_attn in both blocks
    assert ours["losses"][-1] < ours["losses"][0]
    assert ours["adapters_reloaded"] is True  # saved and loaded back exactly
