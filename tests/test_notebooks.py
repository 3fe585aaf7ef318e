"""The notebooks in examples/notebooks run top to bottom (nbclient, a real kernel, the real Macaulay2)
and their outputs hold rendered formulas and pictures."""

import os
from pathlib import Path

import pytest

if os.environ.get("CI") != "true":
    pytest.importorskip("nbclient")
import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "examples" / "notebooks").glob("*.ipynb"))


def _outputs(nb) -> list[dict]:
    return [out for cell in nb.cells if cell.cell_type == "code" for out in cell.get("outputs", [])]


def test_notebooks_are_stored_without_outputs():
    assert len(NOTEBOOKS) >= 3
    for path in NOTEBOOKS:
        assert not _outputs(nbformat.read(path, as_version=4)), f"{path.name} is stored with outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_with_rich_outputs(m2, path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = _outputs(nb)
    assert not [o for o in outputs if o.output_type == "error"]
    kinds = {key for o in outputs for key in o.get("data", {})}
    assert "text/latex" in kinds or "text/markdown" in kinds, kinds  # rendered formulas / tables
    if path.name != "bridge_algebra.ipynb":
        assert kinds & {"image/png", "application/vnd.plotly.v1+json", "text/html"}, kinds  # pictures
