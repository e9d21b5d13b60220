"""PyTorch notebooks with no cell added: the `install-kernel` Jupyter kernel runs an unchanged
PyTorch notebook and the project's notebooks (`notebooks/`) on this library, `%load_ext
autograd_compat` aliases torch in a running IPython shell and unloading restores it, and `run
--help` prints the runner's usage."""

from __future__ import annotations

import json
import os
import sys

import pytest

import autograd_compat
from autograd_compat import _alias
from autograd_compat.__main__ import main
from tests._helpers.paths import ROOT

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

LAUNCHER = "autograd_compat._kernel_launcher"
NOTEBOOK = ROOT / "tests" / "data" / "pytorch_notebook.ipynb"
NOTEBOOKS = ROOT / "notebooks"
PROJECT_NOTEBOOKS = sorted(NOTEBOOKS.glob("*.ipynb"))


def _text(cell) -> str:
    """What a code cell printed and returned, in one string; an error as its name, value and
    last traceback line."""
    parts = []
    for output in cell.outputs:
        if output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue} | {output.traceback[-1]}")
        else:
            parts.append(output.get("text") or output.get("data", {}).get("text/plain", ""))
    return "".join(parts).strip()


def _run_notebook(client, notebook) -> None:
    """Every code cell of `notebook` on `client`'s running kernel, after `%reset -f` clears
    the names an earlier notebook defined (its imports stay, as a re-run kernel's would not:
    the notebooks each import what they use)."""
    client.nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%reset -f")])
    client.execute_cell(client.nb.cells[0], 0)  # a cell is written back into client.nb
    client.nb = notebook
    client.reset_execution_trackers()
    for index, cell in enumerate(notebook.cells):
        client.execute_cell(cell, index)


@pytest.mark.notebooks
def test_install_kernel_and_run_the_notebooks(tmp_path, monkeypatch, capsys):
    """The installed kernel runs a plain PyTorch notebook on autograd_compat (the founding
    example's gradient, one SGD step with PyTorch's numbers, `torch.__name__`, and an
    unsupported import shown with the alias's note), then each of the project's notebooks
    (stored without outputs) with every cell succeeding: one kernel start for all, from the
    notebooks folder, since starting one (JAX and this library imported) costs seconds."""
    prefix = tmp_path / "prefix"
    assert main(["install-kernel", "--prefix", str(prefix), "--name", "ac-test"]) == 0
    spec_dir = prefix / "share" / "jupyter" / "kernels" / "ac-test"
    assert f"in {spec_dir}" in capsys.readouterr().out
    spec = json.loads((spec_dir / "kernel.json").read_text())
    assert spec["argv"][0] == sys.executable
    assert spec["argv"][-4:] == ["-m", LAUNCHER, "-f", "{connection_file}"]
    assert spec["display_name"] == "Python 3 (autograd_compat)"
    monkeypatch.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
    assert spec["env"] == {"PYTHONPATH": f"{ROOT}{os.pathsep}${{PYTHONPATH}}"}  # a checkout
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the spec alone finds this library
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name="ac-test",
        timeout=180,
        startup_timeout=300,  # a loaded CI machine: the kernel imports JAX and this library
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    with client.setup_kernel():
        _run_notebook(client, notebook)
        outputs = [_text(cell) for cell in notebook.cells if cell.cell_type == "code"]
        assert outputs[:4] == [
            "",
            "[[4.5, 4.5], [4.5, 4.5]]",
            "2.25 [0.2, 0.2, 0.2]",
            "'autograd_compat'",
        ]
        assert outputs[4].startswith("ImportError: cannot import name 'NotAModule'")
        assert "torch.nn.NotAModule is not yet supported by autograd_compat" in outputs[4]
        for path in PROJECT_NOTEBOOKS:
            project = nbformat.read(path, as_version=4)
            code = [cell for cell in project.cells if cell.cell_type == "code"]
            assert all(
                not cell.get("outputs") and cell.get("execution_count") is None for cell in code
            ), f"{path.name} must be stored without outputs"
            _run_notebook(client, project)
            assert all(cell.execution_count for cell in code), path.name
    assert "autograd_compat" not in NOTEBOOK.read_text()  # a plain PyTorch notebook


def test_the_project_notebooks_are_found():
    names = {path.name for path in PROJECT_NOTEBOOKS}
    assert {"01_backward_semantics.ipynb", "02_porting_guide.ipynb", "05_training.ipynb"} <= names


def test_install_kernel_options(capsys):
    with pytest.raises(SystemExit):
        main(["install-kernel", "--user", "--prefix", "/nowhere"])
    assert "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["install-kernel", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "python -m autograd_compat install-kernel" in out and "--display-name" in out


def test_ipython_extension_aliases_and_unload_restores(real_torch):
    """Loading rebinds the shell's real `torch` modules and makes `import torch` ours;
    unloading gives the shell, and `sys.modules`, the real PyTorch back."""
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    try:
        shell.run_cell("import torch as before\nimport torch.nn as nn", store_history=False)
        assert shell.user_ns["before"] is real_torch
        shell.run_line_magic("load_ext", "autograd_compat")
        assert _alias.is_aliased()
        shell.run_cell("import torch\nname = torch.__name__", store_history=False)
        assert shell.user_ns["name"] == "autograd_compat"
        assert shell.user_ns["before"] is autograd_compat
        assert shell.user_ns["nn"] is autograd_compat.nn
        assert shell.custom_exceptions == (ImportError,)  # the alias's note on imports
        shell.run_line_magic("unload_ext", "autograd_compat")
        assert not _alias.is_aliased()
        assert shell.user_ns["before"] is real_torch and shell.user_ns["nn"] is real_torch.nn
        assert sys.modules["torch"] is real_torch and shell.custom_exceptions == ()
    finally:
        if _alias.is_aliased():
            autograd_compat.unload_ipython_extension(shell)
        interactiveshell.InteractiveShell.clear_instance()


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_run_help_prints_the_runner_usage(flag, capsys):
    assert main(["run", flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m autograd_compat run script.py")
    assert "-m module" in out and "--nproc N" in out
    assert main(["--help"]) == 0
    assert "install-kernel" in capsys.readouterr().out
