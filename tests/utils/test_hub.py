"""torch.hub and torch.utils.model_zoo: PyTorch's cache layout and environment rules (checked
against real PyTorch), loading from the cache, downloads (file:// URLs stand in for the
network), hash checks, the error of a download that cannot be made, and hubconf entry points."""

from __future__ import annotations

import hashlib
import os
import textwrap
from fractions import Fraction
from urllib.error import URLError

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat import hub
from autograd_compat.utils import model_zoo

_UNREACHABLE = "http://127.0.0.1:9/weights/tiny-{}.pth"  # the discard port: refused at once


@pytest.fixture
def torch_home(tmp_path, monkeypatch):
    """A fresh TORCH_HOME, no XDG_CACHE_HOME and no set_dir."""
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(hub, "_hub_dir", None)
    return tmp_path / "home"


def _checkpoint(folder, name: str = "tiny") -> tuple[str, str]:
    """A state dict saved as `<name>-<sha256 prefix>.pth` in `folder`: (its path, its name)."""
    folder.mkdir(parents=True, exist_ok=True)
    scratch = folder / "scratch.pth"
    torch.save({"weight": torch.arange(6.0).reshape(2, 3), "step": 3}, scratch)
    digest = hashlib.sha256(scratch.read_bytes()).hexdigest()
    path = folder / f"{name}-{digest[:10]}.pth"
    scratch.rename(path)
    return str(path), path.name


@pytest.mark.parametrize(
    "env",
    [
        {"TORCH_HOME": "{tmp}/home"},
        {"XDG_CACHE_HOME": "{tmp}/xdg"},
        {"TORCH_HOME": "~/torch_home", "XDG_CACHE_HOME": "{tmp}/xdg"},
        {},
    ],
)
def test_get_dir_follows_pytorch(env, tmp_path, monkeypatch, real_torch):
    for name in ("TORCH_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setattr(real_torch.hub, "_hub_dir", None)
    assert hub.get_dir() == real_torch.hub.get_dir()
    assert hub._get_torch_home() == real_torch.hub._get_torch_home()
    hub.set_dir("~/elsewhere")
    assert hub.get_dir() == os.path.expanduser("~/elsewhere")


def test_a_cached_checkpoint_loads_as_in_pytorch(torch_home, real_torch, monkeypatch):
    monkeypatch.setattr(real_torch.hub, "_hub_dir", None)
    _, name = _checkpoint(torch_home / "hub" / "checkpoints")
    url = f"http://127.0.0.1:9/weights/{name}"  # never fetched: the file is in the cache
    ours = hub.load_state_dict_from_url(url, check_hash=True)
    theirs = real_torch.hub.load_state_dict_from_url(url, check_hash=True)
    assert ours["step"] == theirs["step"] == 3
    np.testing.assert_array_equal(ours["weight"].numpy(), theirs["weight"].numpy())
    assert isinstance(ours["weight"], torch.Tensor)
    zoo = model_zoo.load_url(url, weights_only=True)
    np.testing.assert_array_equal(zoo["weight"].numpy(), ours["weight"].numpy())


def test_file_name_and_model_dir(tmp_path, torch_home):
    path, _ = _checkpoint(tmp_path / "models")
    loaded = hub.load_state_dict_from_url(
        "http://127.0.0.1:9/any/thing.pth",
        model_dir=str(tmp_path / "models"),
        file_name=os.path.basename(path),
    )
    assert loaded["step"] == 3


def test_weights_only_as_in_pytorch(tmp_path, torch_home):
    folder = torch_home / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    torch.save({"lr": Fraction(1, 3)}, folder / "custom.pth")
    url = "http://127.0.0.1:9/custom.pth"
    assert hub.load_state_dict_from_url(url)["lr"] == Fraction(1, 3)  # weights_only=False
    with pytest.raises(Exception, match="Weights only load failed"):
        hub.load_state_dict_from_url(url, weights_only=True)


def test_download_fills_the_cache_and_checks_the_hash(tmp_path, torch_home, capsys):
    source, name = _checkpoint(tmp_path / "server")
    url = (tmp_path / "server" / name).as_uri()
    loaded = hub.load_state_dict_from_url(url, check_hash=True, progress=False)
    assert loaded["step"] == 3
    cached = torch_home / "hub" / "checkpoints" / name
    assert cached.read_bytes() == (tmp_path / "server" / name).read_bytes()
    assert f'Downloading: "{url}" to {cached}' in capsys.readouterr().out

    bad = tmp_path / "server" / "tiny-00000000.pth"
    os.rename(source, bad)
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "00000000", got'):
        hub.load_state_dict_from_url(bad.as_uri(), check_hash=True, progress=False)
    assert sorted(os.listdir(cached.parent)) == [name]  # no partial file left behind


def test_an_impossible_download_names_the_url_and_the_cache_path(torch_home):
    url = _UNREACHABLE.format("0123abcd")
    cached = torch_home / "hub" / "checkpoints" / "tiny-0123abcd.pth"
    with pytest.raises(URLError) as info:
        hub.load_state_dict_from_url(url, progress=False)
    message = str(info.value)
    assert url in message and str(cached) in message
    assert os.listdir(cached.parent) == []
    with pytest.raises(URLError, match="place it at /tmp/x.bin"):
        hub.download_url_to_file(url, "/tmp/x.bin", progress=False)


def _hubconf(folder) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hubconf.py").write_text(
        textwrap.dedent(
            '''
            dependencies = ["numpy"]

            def tiny(scale=1):
                """A tiny entry point."""
                return 2 * scale

            def _helper():
                return None
            '''
        )
    )
    return str(folder)


def test_load_from_a_local_folder(tmp_path):
    folder = _hubconf(tmp_path / "repo")
    assert hub.load(folder, "tiny", source="local", scale=3) == 6
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        hub.load(folder, "nope", source="local")
    with pytest.raises(ValueError, match='Unknown source: "svn"'):
        hub.load(folder, "tiny", source="svn")


def test_github_repositories_served_from_the_cache(
    tmp_path, torch_home, real_torch, capsys, monkeypatch
):
    monkeypatch.setattr(real_torch.hub, "_hub_dir", None)
    hub.set_dir(str(tmp_path / "hubdir"))
    _hubconf(tmp_path / "hubdir" / "someone_tiny_main")
    assert hub.list("someone/tiny:main", trust_repo=True) == ["tiny"]
    assert hub.help("someone/tiny:main", "tiny", trust_repo=True) == "A tiny entry point."
    assert hub.load("someone/tiny:main", "tiny", 5, trust_repo=True) == 10
    assert "Using cache found in" in capsys.readouterr().err
    real_torch.hub.set_dir(str(tmp_path / "hubdir"))
    assert real_torch.hub.list("someone/tiny:main", trust_repo=True) == ["tiny"]
    # A repository already in the cache counts as trusted, and is not written to the list.
    assert (tmp_path / "hubdir" / "trusted_list").read_text() == ""


def test_an_untrusted_repository_asks_first(tmp_path, torch_home, monkeypatch):
    hub.set_dir(str(tmp_path / "hubdir"))
    answers = iter(["no", "maybe"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    with pytest.raises(Exception, match="Untrusted repository."):
        hub.list("someone/other:main")
    with pytest.raises(ValueError, match="Unrecognized response maybe."):
        hub.list("someone/other:main", trust_repo=False)
