"""The decoder that ships with the package, and what receptive-field normalisation does on it."""

from __future__ import annotations

import json

import pytest
import torch

from attn_widget import analyze, methods
from attn_widget.demo import PYDOC_GPT2, pydoc_gpt2

pytestmark = pytest.mark.model

TEXT = "The for statement is used to iterate over the elements of a sequence, such as a string, tuple or list."


@pytest.fixture(scope="module")
def decoder():
    return pydoc_gpt2()


def test_the_shipped_decoder_is_small_trained_and_causal(decoder):
    model, tokenizer = decoder
    size = sum(f.stat().st_size for f in PYDOC_GPT2.iterdir())
    assert size < 10_000_000
    assert json.loads((PYDOC_GPT2 / "training.json").read_text())["held_out_loss"] < 5.0  # uniform: ln 4096 = 8.3
    analysis = analyze(model, TEXT, tokenizer)
    assert analysis.causal and analysis.capture.value_layout == "blocked"
    assert analysis.attentions.shape[:2] == (4, 4)
    # A trained model's attention is peaked, not the near-uniform rows of a random init:
    # its largest weight per row is several times that of uniform attention over the prefix.
    n = analysis.capture.n_tokens
    uniform_max = (1 / torch.arange(9, n + 1, dtype=torch.float64)).mean()
    assert analysis.attentions[..., 8:, :].amax(-1).mean() > 3 * uniform_max


def test_it_predicts_documentation_text_better_than_chance(decoder):
    model, tokenizer = decoder
    ids = tokenizer(TEXT, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        loss = model(input_ids=ids, labels=ids).loss.item()
    assert loss < 5.0


def first_token_share(matrix: torch.Tensor, n: int) -> float:
    """Mean weight on token 0 over the later half of the rows, at the last layer."""
    return matrix[-1, n // 2 :, 0].mean().item()


@pytest.mark.parametrize("method", ["rollout", "flow"])
def test_normalisation_removes_the_content_free_first_token_bias(decoder, method):
    model, tokenizer = decoder
    analysis = analyze(model, TEXT, tokenizer)
    n = analysis.capture.n_tokens
    uniform = (1 / torch.arange(n // 2 + 1, n + 1, dtype=torch.float64)).mean().item()
    compute = analysis.rollout if method == "rollout" else lambda **kw: analysis.flow(progress=False, **kw)
    raw = first_token_share(compute(receptive_field="none"), n)
    normalised = first_token_share(compute(receptive_field="rf-b"), n)
    content_free = first_token_share(methods.rollout(analysis.null_attention()), n)
    if method == "rollout":
        # Most of the raw rollout's weight on token 0 is what the mask alone produces.
        assert raw > 3 * uniform and content_free > 3 * uniform
    assert normalised < raw
    assert normalised < 1.5 * uniform
