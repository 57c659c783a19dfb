"""Every notebook in notebooks/ and notebooks/course/ executes headlessly without errors."""

from __future__ import annotations

import json
import pathlib
import re

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


def shown_widgets(source: str) -> list[str]:
    """The names a code cell shows: its last line when that is a bare name, and those passed to display()."""
    lines = [line.split("#")[0].strip() for line in source.strip().splitlines()]
    last = [lines[-1]] if lines and re.fullmatch(r"\w+", lines[-1]) else []
    return last + [name.strip() for call in re.findall(r"display\(([\w, ]+)\)", source) for name in call.split(",")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_cell_changes_a_widget_an_earlier_cell_shows(path):
    """After Run All, each widget shows what the cell that shows it says (issue 34: the quickstart's first
    widget, commented "layer 1, mean", showed layer 4, head 3, set by a later cell)."""
    cells = code_cells(path)
    for i, source in enumerate(cells):
        for name in shown_widgets(source):
            for later in cells[i + 1 :]:
                changed = re.findall(rf"^\s*{name}\.\w+\s*=(?!=)", later, re.MULTILINE)
                assert not changed, f"{name}, shown in code cell {i + 1}, is changed later: {changed}"


ZH_WORDS: dict[str, str] = json.loads((NOTEBOOK_DIR.parent / "js/src/locale/zh.json").read_text(encoding="utf-8"))


def english_interface_words(markdown: str) -> list[str]:
    """The emphasised words (*Method*, *View: whole model*) that are the English interface's, where the Chinese
    interface (js/src/locale/zh.json) shows other words."""
    named = [part.strip() for words in re.findall(r"\*([^*\n]+)\*", markdown) for part in words.split(":")]
    return [words for words in named if ZH_WORDS.get(words, words) != words]


@pytest.mark.parametrize("path", COURSE, ids=[f"course/{p.stem}_zh" for p in COURSE])
def test_chinese_notebooks_name_menus_as_the_chinese_interface_shows_them(path):
    """The twins' widgets speak Chinese (lang="zh"): a question naming *Attention rollout* sent the reader
    looking for a menu entry the widget does not show (issue 34)."""
    twin = nbformat.read(path.with_name(f"{path.stem}_zh.ipynb"), as_version=4)
    english = [
        words for cell in twin.cells if cell.cell_type == "markdown" for words in english_interface_words(cell.source)
    ]
    assert not english, f"English interface words in {path.stem}_zh: {english}"
    readme = (NOTEBOOK_DIR / "course" / "README.md").read_text(encoding="utf-8")
    assert not english_interface_words(readme.split("## 中文")[1])
    assert "界面文字目前是英文" not in readme  # "the interface is in English" no longer
