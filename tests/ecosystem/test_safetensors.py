"""safetensors' torch functions under the alias, against real PyTorch: the same bytes written,
the same values read, and files written by either library read by the other."""

import pytest

from tests.ecosystem.conftest import run_script

pytest.importorskip("safetensors")


def test_save_and_load_round_trip(both, tmp_path):
    ours = both("safetensors_io.py", "write", ".")
    assert ours["row"]["loaded"]["row"]["values"] == ours["loaded"]["f32"]["values"][2]
    assert ours["refused"]["strided"].startswith("You are trying to save a non contiguous tensor")
    assert ours["refused"]["shared"].startswith("Some tensors share memory")
    assert ours["unchanged"] is True


@pytest.mark.parametrize("writer_aliased", [False, True], ids=["torch_writes", "we_write"])
def test_files_cross_libraries(tmp_path, writer_aliased):
    written = run_script("safetensors_io.py", "write", ".", aliased=writer_aliased, cwd=tmp_path)
    path = str(tmp_path / "weights.safetensors")
    read = run_script("safetensors_io.py", "read", path, aliased=not writer_aliased, cwd=tmp_path)
    assert read["file"] == written["file"]
    assert read["loaded"] == written["loaded"]
