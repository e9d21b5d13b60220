"""JAX's persistent compilation cache, on by default in a per-user folder (`_pure/compile_cache`).

JAX reads its cache settings once per process, so each case runs a small script in a fresh
process (with `-W error`: a cache that cannot be written must not even warn), its cache folder
under pytest's tmp_path. The suite's own process has the cache off (root conftest.py)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import jax
import pytest

import autograd_compat as torch
from autograd_compat._pure import compile_cache as cc
from tests._helpers.paths import ROOT

ENV = "AUTOGRAD_COMPAT_CACHE_DIR"

# A forward and backward through a few ops; reports the numbers, where the cache went and
# JAX's cache events (listened to from before the import, which itself compiles).
SCRIPT = textwrap.dedent(
    """
    import json, time
    start = time.perf_counter()
    import jax
    from jax import monitoring
    events = {}
    def count(name, **_):
        events[name] = events.get(name, 0) + 1
    monitoring.register_event_listener(count)
    import autograd_compat as torch
    x = torch.linspace(-1, 1, 7, requires_grad=True)
    y = (torch.tanh(x * 3) ** 2).sum()
    y.backward()
    print(json.dumps({
        "y": y.item(),
        "grad": x.grad.tolist(),
        "ours": torch._compile_cache.CACHE_DIR,
        "jax": jax.config.values["jax_compilation_cache_dir"],
        "hits": events.get("/jax/compilation_cache/cache_hits", 0),
        "misses": events.get("/jax/compilation_cache/cache_misses", 0),
        "seconds": time.perf_counter() - start,
    }))
    """
)


def _expected() -> tuple[float, list[float]]:
    import numpy as np

    x = np.linspace(-1, 1, 7, dtype=np.float32).astype(np.float64)
    t = np.tanh(3 * x)
    return float(np.sum(t**2)), list(2 * t * (1 - t**2) * 3)


def _run(tmp_path: pathlib.Path, script: str = SCRIPT, **env: str | None) -> dict:
    """Run `script` in a fresh process; `env` entries override (None: unset)."""
    full = dict(os.environ, JAX_PLATFORMS="cpu", XDG_CACHE_HOME=str(tmp_path / "xdg"))
    full["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), full.get("PYTHONPATH")]))
    for name in (ENV, "JAX_COMPILATION_CACHE_DIR", "JAX_ENABLE_COMPILATION_CACHE"):
        full.pop(name, None)
    for name, value in env.items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.splitlines()[-1])


def _entries(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*-cache")) if folder.is_dir() else []


def _check_numbers(out: dict) -> None:
    y, grad = _expected()
    assert out["y"] == pytest.approx(y, rel=1e-5)
    assert out["grad"] == pytest.approx(grad, rel=1e-4, abs=1e-6)


def test_entries_are_written_then_a_second_process_hits_them(tmp_path):
    cache = tmp_path / "cache"
    first = _run(tmp_path, **{ENV: str(cache)})
    _check_numbers(first)
    assert first["ours"] == first["jax"] == str(cache)
    written = _entries(cache)
    assert len(written) >= 3, written  # the import's, the ops' and the backward's programs
    assert first["misses"] == len(written) and first["hits"] == 0

    second = _run(tmp_path, **{ENV: str(cache)})
    assert second["y"] == first["y"] and second["grad"] == first["grad"]
    assert second["hits"] == len(written) and second["misses"] == 0
    assert _entries(cache) == written


def test_the_default_folder_is_per_user_under_xdg_cache_home_or_home(tmp_path):
    out = _run(tmp_path, **{ENV: None})
    assert out["ours"] == str(tmp_path / "xdg" / "autograd_compat" / "jax")
    assert _entries(tmp_path / "xdg" / "autograd_compat" / "jax")

    home = tmp_path / "home"
    home.mkdir()
    out = _run(tmp_path, **{ENV: None, "XDG_CACHE_HOME": None, "HOME": str(home)})
    assert out["ours"] == str(home / ".cache" / "autograd_compat" / "jax")
    assert _entries(home / ".cache" / "autograd_compat" / "jax")


@pytest.mark.parametrize("value", ["", "off"])
def test_the_variable_empty_or_off_disables_it(tmp_path, value):
    out = _run(tmp_path, **{ENV: value})
    _check_numbers(out)
    assert out["ours"] is None and out["jax"] is None
    assert out["misses"] == out["hits"] == 0
    assert not (tmp_path / "xdg").exists()  # nothing in the default place either


def test_the_folder_is_made_at_the_first_compile_not_before(tmp_path):
    """The module alone (loaded from its file, without the package, whose import compiles)
    configures JAX and creates nothing; JAX makes the folder when it first compiles."""
    cache = tmp_path / "a" / "b" / "cache"
    script = textwrap.dedent(
        f"""
        import importlib.util, json, os
        spec = importlib.util.spec_from_file_location(
            "compile_cache", {str(ROOT / "autograd_compat" / "_pure" / "compile_cache.py")!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        before = os.path.exists({str(tmp_path / "a")!r})
        import jax
        jax.jit(lambda v: v * 2 + 1)(3.0).block_until_ready()
        print(json.dumps({{"dir": module.CACHE_DIR, "before": before}}))
        """
    )
    out = _run(tmp_path, script, **{ENV: str(cache)})
    assert out == {"dir": str(cache), "before": False}
    assert len(_entries(cache)) == 1


def test_a_read_only_folder_is_no_error_and_no_warning(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    try:
        out = _run(tmp_path, **{ENV: str(cache)})
    finally:
        cache.chmod(0o700)
    _check_numbers(out)
    if os.access(cache, os.W_OK) and os.geteuid() == 0:
        return  # root writes through the mode bits: the folder is writable after all
    assert out["ours"] is None and out["jax"] is None
    assert _entries(cache) == []


def test_a_folder_that_cannot_be_made_is_no_error_and_no_warning(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = _run(tmp_path, **{ENV: str(blocker / "cache")})
    _check_numbers(out)
    assert out["ours"] is None and out["jax"] is None


def test_a_cache_the_user_set_for_jax_wins(tmp_path):
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    out = _run(tmp_path, **{ENV: str(ours), "JAX_COMPILATION_CACHE_DIR": str(theirs)})
    _check_numbers(out)
    assert out["ours"] is None and out["jax"] == str(theirs)
    assert not ours.exists()


def test_jax_cache_switched_off_by_the_user_stays_off(tmp_path):
    out = _run(tmp_path, **{ENV: str(tmp_path / "ours"), "JAX_ENABLE_COMPILATION_CACHE": "0"})
    assert out["ours"] is None and out["jax"] is None
    assert not (tmp_path / "ours").exists()


def test_the_test_process_caches_in_its_runs_own_folder():
    """The suite never reads or writes the user's cache: its processes share a folder made
    for the run (the root conftest.py)."""
    folder = os.environ["AUTOGRAD_COMPAT_SUITE_CACHE"]
    assert os.environ[ENV] == folder != torch._compile_cache.default_dir()
    assert os.path.basename(folder).startswith("autograd_compat_suite_cache_")
    assert torch._compile_cache.CACHE_DIR == folder
    if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
        assert jax.config.values["jax_compilation_cache_dir"] == folder


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, "default"),
        ("", None),
        (" off ", None),
        ("0", None),
        ("None", None),
        ("~/jc", os.path.join(os.path.expanduser("~"), "jc")),
        ("rel/jc", os.path.abspath("rel/jc")),
    ],
)
def test_the_variable_is_read_as_documented(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv(ENV, raising=False)
    else:
        monkeypatch.setenv(ENV, value)
    assert cc.chosen_dir() == (cc.default_dir() if expected == "default" else expected)


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    assert cc.default_dir() == os.path.join(
        os.path.expanduser("~"), ".cache", "autograd_compat", "jax"
    )


def test_usable_creates_nothing(tmp_path):
    assert cc.usable(str(tmp_path / "x" / "y"))
    assert not (tmp_path / "x").exists()
    (tmp_path / "f").write_text("")
    assert not cc.usable(str(tmp_path / "f"))
    assert not cc.usable(str(tmp_path / "f" / "y"))
