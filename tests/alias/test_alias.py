"""The torch alias: `import torch` resolves to autograd_compat, for a process or a block."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import autograd_compat
from autograd_compat import _alias
from autograd_compat.__main__ import main


def test_alias_maps_torch_and_submodules_then_restores():
    before = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    with autograd_compat.alias_torch() as aliased:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim as optim
        import torch.utils.data as data
        from torch.autograd import Variable
        from torch.nn.modules.batchnorm import BatchNorm2d

        assert aliased is autograd_compat and torch is autograd_compat
        assert nn is autograd_compat.nn and F is autograd_compat.nn.functional
        assert optim.SGD is autograd_compat.optim.SGD and data.DataLoader
        assert Variable is autograd_compat.autograd.Variable
        assert BatchNorm2d is autograd_compat.nn.BatchNorm2d
        assert _alias.is_aliased()
    after = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    assert after == before
    assert not _alias.is_aliased()
    assert autograd_compat.__spec__.name == "autograd_compat"
    assert autograd_compat.nn.__spec__.name == "autograd_compat.nn"


def test_alias_replaces_an_already_imported_real_torch(real_torch):
    assert sys.modules["torch"] is real_torch
    with autograd_compat.alias_torch():
        import torch

        assert torch is autograd_compat
        outer = autograd_compat.alias_torch()  # nested aliases are counted
        outer.restore()
        import torch.nn

        assert torch.nn is autograd_compat.nn
    import torch

    assert torch is real_torch and sys.modules["torch.nn"] is real_torch.nn


def test_missing_parts_say_they_are_not_supported():
    with autograd_compat.alias_torch():
        with pytest.raises(ModuleNotFoundError, match="torch.package is not yet supported"):
            import torch.package  # noqa: F401
        import torch

        with pytest.raises(
            AttributeError, match="torch.fbgemm_linear_int8_weight is not yet supported"
        ):
            torch.fbgemm_linear_int8_weight  # noqa: B018
        with pytest.raises(AttributeError, match="^module 'torch' has no attribute 'sq'$"):
            torch.sq  # noqa: B018  (PyTorch has no such name: its own message)
        with pytest.raises(
            AttributeError, match="torch.nn.AdaptiveLogSoftmaxWithLoss is not yet supported"
        ):
            torch.nn.AdaptiveLogSoftmaxWithLoss  # noqa: B018
        assert not hasattr(torch.optim, "LBFGS_does_not_exist")
        with pytest.raises(
            ImportError, match="cannot import name 'AdaptiveLogSoftmaxWithLoss'"
        ) as info:
            from torch.nn import AdaptiveLogSoftmaxWithLoss  # noqa: F401
        _alias.annotate(info.value)
        assert "torch.nn.AdaptiveLogSoftmaxWithLoss is not yet supported" in info.value.__notes__[0]


def test_runner_sets_argv_and_returns_globals(tmp_path, capsys):
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            import torch
            import torch.nn as nn
            model = nn.Linear(2, 1)
            out = model(torch.ones(3, 2)).sum()
            out.backward()
            args = sys.argv[1:]
            print("ran", torch.__name__, args)
            """
        )
    )
    result = _alias.run([str(script), "--lr", "0.1"])
    assert result["args"] == ["--lr", "0.1"] and result["model"].weight.grad is not None
    assert "ran autograd_compat ['--lr', '0.1']" in capsys.readouterr().out
    assert not _alias.is_aliased()
    missing = tmp_path / "missing.py"
    missing.write_text("from torch.nn import AdaptiveLogSoftmaxWithLoss\n")
    with pytest.raises(ImportError) as info:
        main(["run", str(missing)])
    assert "torch.nn.AdaptiveLogSoftmaxWithLoss is not yet supported" in info.value.__notes__[0]


def test_main_demo_and_help(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "x.grad =" in out and "4.5000" in out
    assert main(["--help"]) == 0
    assert "run script.py" in capsys.readouterr().out
    assert main(["bogus"]) == 2


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--nproc", "2", "--help"]])
def test_run_help_prints_the_runners_usage(args, capsys, monkeypatch, tmp_path):
    """`run --help` prints the runner's usage and exits 0: no script named `--help` is opened
    and no process is launched."""
    monkeypatch.chdir(tmp_path)  # a file named --help here would be a script to run
    assert main(["run", *args]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m autograd_compat run script.py")
    assert "--nproc N" in out and "can't open file" not in out


def test_run_help_from_the_command_line():
    """`python -m autograd_compat run --help` in a fresh process: the usage, exit status 0."""
    done = subprocess.run(
        [sys.executable, "-m", "autograd_compat", "run", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m autograd_compat run script.py"), done.stdout


def test_command_line_runner_in_a_fresh_process(tmp_path):
    """`python -m autograd_compat run` uses this library, also where PyTorch is installed."""
    script = tmp_path / "check.py"
    script.write_text(
        "import sys, torch\n"
        "from torch.autograd import Variable\n"
        "x = Variable(torch.ones(2), requires_grad=True)\n"
        "(x * 3).sum().backward()\n"
        "print(torch.__name__, x.grad.tolist(), sys.argv[1:])\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "autograd_compat", "run", str(script), "a", "b"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "autograd_compat [3.0, 3.0] ['a', 'b']"
