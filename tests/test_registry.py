"""The method registry: a method defined in one function and one register(...) call reaches the
widget's menu, its data trait, the exports and compare(); every registered method can be drawn."""

from __future__ import annotations

import json
import pathlib
import re

import numpy as np
import pytest
import torch
from tiny_models import tiny_lm, tiny_model

from attn_widget import AttentionWidget, analyze, demo, methods, payload
from attn_widget.methods import registry

TEXT = "the cat sat on the mat"


def squared(analysis, _settings) -> torch.Tensor:
    """``(L, n, n)``: the head-mean attention squared, rows re-normalised (a toy method)."""
    values = analysis.raw().to(torch.float64) ** 2
    return values / values.sum(-1, keepdim=True)


def position(analysis, target) -> torch.Tensor:
    """``(n,)``: each token's position (a toy token score)."""
    return torch.arange(analysis.capture.n_tokens, dtype=torch.float64)


@pytest.fixture
def toy_method():
    with registry.registered(registry.register("squared", "Squared attention", "A toy method.", squared)) as entry:
        yield entry
    assert "squared" not in [m.id for m in registry.matrix_methods()]


@pytest.fixture
def toy_attribution():
    entry = registry.register_attribution("position", "token position", "A toy score.", position, signed=False)
    with registry.registered(entry):
        yield entry


def test_the_built_in_methods_are_registered_in_menu_order():
    """The course's order (notebooks/course), one heading per step, every entry with its menu line and when to
    trust it."""
    assert [m.id for m in registry.matrix_methods()] == [
        "raw", "binarised", "paths",
        "rollout", "flow", "rollout_rf", "flow_rf",
        "effective", "effective_rollout", "effective_flow",
        "hidden_attribution",
        "norm", "norm_rollout", "norm_residual", "norm_residual_rollout", "globenc", "globenc_rollout",
        "alti", "alti_rollout", "value_zeroing", "value_zeroing_rollout",
    ]  # fmt: skip
    headings = list(dict.fromkeys(m.group for m in registry.matrix_methods()))
    assert headings == [
        "Attention as a graph", "Through the layers", "Effective attention", "Gradients",
        "Context mixing (values, residual, norms)",
    ]  # fmt: skip
    for entry in (*registry.matrix_methods(), *registry.attribution_methods()):
        assert entry.hint and entry.trust, entry.id
        assert len(entry.hint) <= 100 and "\n" not in entry.hint, entry.id  # one line in a menu's tooltip
    hints = [entry.hint for entry in registry.matrix_methods()]
    assert len(set(hints)) == len(hints), "each entry says its own line"
    assert [a.id for a in registry.attribution_methods()] == [
        "saliency", "grad_x_input", "integrated_gradients", "attention_gradient", "gradient_rollout", "blank_out",
        "alti_logit",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="already registered"):
        registry.register("raw", "Raw again", "", squared)
    with pytest.raises(ValueError, match=r"'rollout_x' is not a registered matrix method; the ids are raw, binarised,"):
        registry.matrix_method("rollout_x")
    with pytest.raises(ValueError, match=r"'saliency_x' is not a registered attribution method; the ids are saliency,"):
        registry.attribution_method("saliency_x")


def test_every_method_file_that_registers_is_listed():
    """A method file is imported (and so registered) only when ``methods/__init__.py`` lists it: a file that calls
    a ``register...`` function but is not listed would be silently left out of every menu."""
    folder = pathlib.Path(methods.__file__).parent
    registering = {
        path.stem for path in folder.glob("*.py") if re.search(r"^register\w*\(", path.read_text(), re.MULTILINE)
    }
    unlisted = registering - {*methods.MATRIX_FILES, *methods.ATTRIBUTION_FILES}
    assert not unlisted, f"add {sorted(unlisted)} to MATRIX_FILES or ATTRIBUTION_FILES in methods/__init__.py"
    assert len(registering) == len(methods.MATRIX_FILES) + len(methods.ATTRIBUTION_FILES)


def test_applicability_says_why_not(tokenizer):
    encoder = analyze(tiny_model("bert"), TEXT, tokenizer)
    assert (
        registry.matrix_method("rollout_rf")
        .applies(encoder)
        .startswith("Receptive-field normalisation is for decoders")
    )
    assert registry.matrix_method("rollout").applies(encoder) == ""


def test_a_registered_method_reaches_the_widget_exports_and_compare(tokenizer, toy_method):
    w = AttentionWidget(tiny_lm(), TEXT, tokenizer, prepare=["squared"])
    w.wait()
    expected = squared(w.analysis, None)
    meta = w.methods[-1]
    assert meta["id"] == "squared" and meta["label"] == "Squared attention" and not meta["per_head"]
    decoded = payload.decode(w.data_squared)["matrices"]
    np.testing.assert_allclose(decoded, expected.numpy(), atol=2e-5)
    assert w.ready["squared"] == [1, 2, 3] and "data_squared" in w.keys
    np.testing.assert_array_equal(w.to_numpy()["squared"], expected.numpy())
    np.testing.assert_array_equal(w.to_frame("squared", layer=2).to_numpy(), expected[1].numpy())
    state = json.loads(w.to_html().split('id="attnw-state">')[1].split("</script>")[0])
    assert "data_squared" in state and state["methods"][-1]["id"] == "squared"
    w.method = "squared"
    rows = w.analysis.compare()
    assert set(rows[rows.method == "squared"].layer) == {1, 2, 3}
    # A widget keeps the methods it was made with (its data traits are its own).
    assert "data_squared" not in AttentionWidget.class_traits()


def test_a_registered_method_reaches_the_image_widget_too(toy_method):
    """One registration serves every input kind the registry reads: an image classifier's widget offers it, sends
    its data and compares it. (Encoder-decoders have a menu of their own, joint_methods.py: not yet.)"""
    vit, images, _labels = demo.digits_vit()
    w = AttentionWidget(vit, images[0], prepare=["squared"])
    w.wait()
    assert w.methods[-1]["id"] == "squared" and w.ready["squared"] == list(range(1, w.n_layers + 1))
    expected = squared(w.analysis, None).numpy()
    np.testing.assert_allclose(payload.decode(w.data_squared)["matrices"], expected, atol=2e-5)
    assert "squared" in set(w.analysis.compare().method)


def test_a_registered_attribution_reaches_the_menu_and_compare(tokenizer, toy_attribution):
    w = AttentionWidget(tiny_lm(), TEXT, tokenizer)
    assert w.attributions[-1] == {
        "id": "position",
        "label": "token position",
        "description": "A toy score.",
        "signed": False,
        "hint": "",
        "trust": "",
    }
    w.attribution = "position"
    w.wait()
    assert w.attribution_data["status"] == "done"
    np.testing.assert_allclose(payload.decode(w.attribution_data["values"])["matrices"][0, 0], np.arange(8), atol=1e-2)
    assert "position" in w.analysis.ATTRIBUTIONS
    rows = w.analysis.compare()
    assert set(rows.reference) >= {"position", "saliency", "blank_out"}


@pytest.mark.parametrize("family", ["bert", "llama"])
def test_every_applicable_method_publishes_data_of_its_declared_shape(tokenizer, family):
    w = AttentionWidget(tiny_model(family), TEXT, tokenizer, prepare="all")
    w.wait()
    n, L, H = len(w.tokens), w.n_layers, w.n_heads
    for meta in [*w.methods, *w.graphs]:  # the whole-model graphs are prepared with the methods that draw them
        decoded = payload.decode(getattr(w, f"data_{meta['id']}"))["matrices"]
        assert decoded.shape == ((L, H + 2, n, n) if meta["per_head"] else (L, n, n)), meta["id"]
        assert meta["graph"] in ("", *[m["id"] for m in [*w.methods, *w.graphs]]), meta["id"]
        if meta["row_label"]:
            assert payload.decode(getattr(w, f"data_{meta['id']}_rows"))["matrices"].shape[-1] == 1


def test_a_flow_layer_computed_on_request_re_sends_only_that_methods_data(tokenizer, monkeypatch):
    w = AttentionWidget(tiny_model("gpt2"), " ".join(["the cat sat on the mat and the dog ran"] * 5), tokenizer)
    assert len(w.tokens) > 40 and w.ready["flow"] == []
    sent = []
    monkeypatch.setattr(w, "_send", lambda msg, buffers=None: sent.append(msg))
    w.compute("flow", [2], wait=True)
    updates = [message for message in sent if message["method"] == "update"]
    # Binary values travel as buffers: their names are in buffer_paths, not in state.
    updated = {name for m in updates for name in [*m["state"], *(path[0] for path in m["buffer_paths"])]}
    assert "data_flow" in updated and updated <= {"data_flow", "ready", "job"}, updated


def test_every_matrix_method_explains_itself_in_plain_text():
    # Issue 16: the "About this method" panel has a plain-language text for every registered method.
    for method in registry.matrix_methods():
        assert len(method.explain) > 80, method.id
        assert "Definition:" in method.explain, method.id
        assert not re.search(r"<[a-zA-Z/]", method.explain), method.id  # plain text, no HTML
