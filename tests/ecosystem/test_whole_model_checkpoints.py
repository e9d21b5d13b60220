"""A whole model saved with `torch.save(model)` loads under `safe_globals` in the other
library, both ways: the classes given and the names the pickle carries are matched."""

import numpy as np
import pytest

from tests.ecosystem.conftest import assert_close


@pytest.mark.parametrize("saved_by_ours", [False, True], ids=["torch_to_ours", "ours_to_torch"])
def test_whole_model_under_safe_globals(script, tmp_path, saved_by_ours):
    path = str(tmp_path / "model.pt")
    saved = script("whole_model.py", "save", path, aliased=saved_by_ours)
    loaded = script("whole_model.py", "load", path, aliased=not saved_by_ours)
    assert loaded["type"] == "RNNModel"
    assert np.asarray(loaded["output"]).shape == (2, 3, 20)
    assert_close(loaded["output"], saved["output"], rtol=1e-5, atol=1e-6)
