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


# One meaning per name (issue 34): "rollout" and "flow" are the plain methods in Python, the widget and exports;
# the receptive-field normalised numbers are "rollout_rf" / "flow_rf", receptive_field="rf-b", and say so.
PLAIN_AND_RF = {
    "rollout": lambda a: a.rollout(),
    "rollout_rf": lambda a: a.rollout(receptive_field="rf-b"),
    "flow": lambda a: a.flow(progress=False),
    "flow_rf": lambda a: a.flow(receptive_field="rf-b", progress=False),
}


@pytest.fixture(scope="module")
def decoder_widget(decoder):
    from attn_widget import AttentionWidget

    model, tokenizer = decoder
    return AttentionWidget(analysis=analyze(model, TEXT, tokenizer))


def test_the_widget_and_python_mean_the_same_numbers_by_the_same_name(decoder_widget):
    w = decoder_widget
    a = w.analysis
    assert a.causal
    for method, python in PLAIN_AND_RF.items():
        shown = w.method_spec(method).values(a, w.view_settings)[0]
        torch.testing.assert_close(shown, python(a), rtol=0, atol=1e-12, msg=method)
        frame = w.to_frame(method, layer=a.n_layers)
        torch.testing.assert_close(torch.from_numpy(frame.to_numpy()), python(a)[-1], rtol=0, atol=1e-12)
    # The defaults are the plain methods, which on a decoder differ from the normalised ones.
    assert torch.equal(a.rollout(), a.rollout(receptive_field="none"))
    assert torch.equal(a.flow(progress=False), a.flow(receptive_field="none", progress=False))
    assert torch.equal(a.flow_rows(5), a.flow_rows(5, receptive_field="none"))
    assert (a.rollout() - a.rollout(receptive_field="rf-b")).abs().max() > 0.1


def test_receptive_field_normalised_numbers_are_named_so_wherever_they_are_shown(decoder_widget):
    w = decoder_widget
    a = w.analysis
    meta = {m["id"]: m for m in w.methods}
    for method in PLAIN_AND_RF:
        normalised = method.endswith("_rf")
        for text in (meta[method]["label"], w.method_spec(method).label, w.to_frame(method).attrs["label"]):
            assert ("receptive-field normalised" in text) == normalised, (method, text)
        assert ("RF-B" in meta[method]["explain"]) == normalised
        assert w.to_frame(method).attrs["method"] == method
    # Every rollout or flow the widget offers (mixing rollouts aside: no RF there, §7) whose numbers are RF-B
    # rollout or flow says so in its label.
    rf = [python(a) for method, python in PLAIN_AND_RF.items() if method.endswith("_rf")]
    for entry in w.methods:
        spec = w.method_spec(entry["id"])
        if spec.per_head or not spec.cumulative or spec.group not in ("Through the layers", "Effective attention"):
            continue
        values = spec.values(a, w.view_settings)[0]
        if any(values.shape == r.shape and torch.allclose(values, r, atol=1e-9) for r in rf):
            assert "receptive-field normalised" in entry["label"], entry["id"]
    # compare(): the normalised rows are named by RF-B, the plain ones by the plain name.
    names = {spec.id: spec.compare.name or spec.id for spec in (w.method_spec(m) for m in PLAIN_AND_RF)}
    assert names == {"rollout": "rollout", "rollout_rf": "rollout (RF-B)", "flow": "flow", "flow_rf": "flow (RF-B)"}
