"""The porting, higher-order, custom-function and training notebooks run end to end.

Each notebook is executed in a fresh kernel with nbclient (nbmake's machinery), from the
notebooks folder, as `pytest --nbmake notebooks/` would; they are stored without outputs.
"""

from __future__ import annotations

import pytest

from tests._helpers.paths import ROOT

NOTEBOOKS = ROOT / "notebooks"
NAMES = [p.name for p in sorted(NOTEBOOKS.glob("0[2-5]_*.ipynb"))]

pytestmark = pytest.mark.notebooks


@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs(name):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(
        not cell.get("outputs") and cell.get("execution_count") is None
        for cell in notebook.cells
        if cell.cell_type == "code"
    ), f"{name} must be stored without outputs"
    client = nbclient.NotebookClient(
        notebook,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()


def test_expected_notebooks_exist():
    assert {"02_porting_guide.ipynb", "03_higher_order.ipynb", "05_training.ipynb"} <= set(NAMES)
