"""Every notebook in notebooks/ and notebooks/course/ executes headlessly without errors."""

from __future__ import annotations

import pathlib

import nbclient
import nbformat
import pytest

pytestmark = pytest.mark.notebook

NOTEBOOK_DIR = pathlib.Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted([*NOTEBOOK_DIR.glob("*.ipynb"), *NOTEBOOK_DIR.glob("course/*.ipynb")])
# "quickstart", "course/01_graphs_and_degree": `-k course` selects the course.
IDS = [str(p.relative_to(NOTEBOOK_DIR).with_suffix("")) for p in NOTEBOOKS]
COURSE = sorted(p for p in NOTEBOOK_DIR.glob("course/*.ipynb") if not p.stem.endswith("_zh"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_executes(path):
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    views = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert views, "the notebook displays at least one widget"


def code_cells(path: pathlib.Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]


@pytest.mark.parametrize("path", COURSE, ids=[f"course/{p.stem}" for p in COURSE])
def test_course_notebook_has_a_chinese_twin_with_the_same_code(path):
    twin = path.with_name(f"{path.stem}_zh.ipynb")
    assert twin.exists(), f"{twin.name} is missing"
    # The same code, except that the twin's widgets speak Chinese: every AttentionWidget(...) ends with lang="zh".
    code = code_cells(twin)
    assert sum(c.count('lang="zh")') for c in code) == sum(c.count("AttentionWidget(") for c in code) > 0
    same = [c.replace(', lang="zh")', ")") for c in code]
    assert same == code_cells(path), f'{twin.name} must run exactly the code of {path.name}, with lang="zh" widgets'
    english = [c.cell_type for c in nbformat.read(path, as_version=4).cells]
    assert [c.cell_type for c in nbformat.read(twin, as_version=4).cells] == english


def test_course_readme_lists_every_notebook_in_order():
    readme = (NOTEBOOK_DIR / "course" / "README.md").read_text(encoding="utf-8")
    for suffix in ("", "_zh"):
        positions = [readme.find(f"({p.stem}{suffix}.ipynb)") for p in COURSE]
        assert -1 not in positions and positions == sorted(positions), f"README order ({suffix or 'English'})"
