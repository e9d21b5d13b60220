"""accelerate under the alias, against real PyTorch: training steps through Accelerator(cpu=True),
save_state/load_state, and init_empty_weights on the meta device."""

import importlib.util

import pytest

# Looked up, not imported: in pytest's process the import loads real torch (peft's loads
# torchvision too, whose compiled ops fail to load here: importorskip skipped the test).
if importlib.util.find_spec("accelerate") is None:
    pytest.skip("accelerate is not installed", allow_module_level=True)


def test_prepare_train_save_and_load_state(both):
    ours = both("accelerate_train.py", ".")
    assert ours["again"] == ours["second"]  # load_state restored the saved model and optimizer
    assert ours["saved"] == ["model.safetensors", "optimizer.bin", "random_states_0.pkl"]
    assert all(is_meta for _, is_meta, _ in ours["empty"])
    assert len(ours["accumulated"][0]) == 4
