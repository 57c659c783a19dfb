"""The package as users install it: ``python -m build`` gives a wheel and an sdist holding the
bundle, the CSS, the shipped models and ``py.typed``; the wheel, installed into a fresh virtual
environment with no source tree on its path, analyses a text with a shipped model and its exported
page renders in real Chromium."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

import pytest

from .test_export import open_offline

pytestmark = pytest.mark.browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
# What a working install needs besides the Python modules.
SHIPPED = [
    "attn_widget/py.typed",
    "attn_widget/static/widget.js",
    "attn_widget/static/widget.css",
    "attn_widget/data/pydoc-gpt2/model.safetensors",
    "attn_widget/data/reversal-bart/model.safetensors",
    "attn_widget/data/digits-vit/model.safetensors",
]

# Run inside the fresh environment, from an empty folder: which attn_widget it imports, and an exported page.
SCRIPT = """
import sys, attn_widget
from attn_widget import AttentionWidget, demo
model, tokenizer = demo.pydoc_gpt2()
widget = AttentionWidget(model, "The for statement iterates over a list.", tokenizer, method="rollout", layer=4)
widget.to_html(sys.argv[1])
print(attn_widget.__file__)
"""


def run(command: list, **options) -> subprocess.CompletedProcess:
    """Run a command; a failure shows its output (check=True alone would hide it)."""
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, **options)
    assert done.returncode == 0, f"{command[:4]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: hatchling comes from the dev environment, so the build needs no index.
    run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--sdist", "--outdir", out, ROOT])
    return out


def test_the_wheel_and_sdist_hold_the_bundle_the_models_and_the_type_marker(dist):
    (wheel,) = dist.glob("attn_widget-*.whl")
    (sdist,) = dist.glob("attn_widget-*.tar.gz")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [path for path in SHIPPED if path not in names]
    assert not missing, f"the wheel lacks {missing}"
    assert not [n for n in names if n.startswith(("tests/", "js/", "notebooks/"))], "the wheel ships only the package"
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert not [path for path in SHIPPED if path not in members], "the sdist lacks shipped files"
    assert {"js/src/index.js", "js/src/locale/zh.json", "pyproject.toml"} <= members
    assert not [m for m in members if m.startswith(("js/node_modules/", ".venv/", "tests/artifacts/"))]


@pytest.mark.timeout(600)  # a fresh install compiles every numba kernel (no cache yet): 30-60 s here
def test_the_wheel_alone_renders_the_widget(dist, tmp_path, browser):
    (wheel,) = dist.glob("attn_widget-*.whl")
    env = tmp_path / "env"
    run([sys.executable, "-m", "venv", "--without-pip", env])
    python = env / "bin" / "python"
    # The dependencies (torch, transformers, ...) come from this environment's site-packages, added
    # by a .pth line: the .pth files there (the editable install of this source tree) are not read.
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = run([python, "-c", purelib]).stdout.strip()
    pathlib.Path(site, "dev-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--no-index"]
    run([*pip, wheel])
    work = tmp_path / "empty"
    work.mkdir()
    page_path = tmp_path / "page.html"
    done = run([python, "-c", SCRIPT, page_path], cwd=work, env={"PATH": ""})
    imported = pathlib.Path(done.stdout.strip().splitlines()[-1])
    assert imported.is_relative_to(env), f"imported {imported}, not the installed wheel"
    page, attempts, errors = open_offline(browser, page_path)
    try:
        assert int(page.get_attribute(".attnw-canvas", "data-edges")) > 0
        assert page.inner_text(".attnw-caption").startswith("Attention rollout · layer 4 of 4")
        assert attempts == [] and errors == []
    finally:
        page.close()
