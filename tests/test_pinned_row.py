"""Flow on a long input: pinning a token computes its row layer by layer in the background
(attn_widget/pinned_row.py), sent inside the method's data while whole layers stay on request."""

from __future__ import annotations

import numpy as np
import pytest
from test_widget import LONG_TEXT
from tiny_models import tiny_model

from attn_widget import AttentionWidget, methods, payload


def row(index: int, layers: list[int], computing: bool = False) -> dict:
    """A ``ready_row`` entry."""
    return {"index": index, "layers": layers, "computing": computing}


def decoded(w: AttentionWidget, method: str) -> np.ndarray:
    return payload.decode(getattr(w, f"data_{method}"))["matrices"]


@pytest.fixture(scope="module")
def long_widget(tokenizer):
    return AttentionWidget(tiny_model("gpt2"), LONG_TEXT, tokenizer, method="flow")


def test_pinning_a_token_sends_its_flow_row_for_every_layer(long_widget):
    w = long_widget
    n = len(w.tokens)
    assert n > 40 and w.ready["flow"] == [] and w.ready_row == {}
    # The independent reference: the whole flow of every layer from the captured attention.
    reference = methods.flow(w.analysis.raw().double()).numpy()

    w.selected = {"side": "source", "index": 7}  # an input token is not a row: nothing to compute
    w.wait()
    assert w.ready_row == {} and w.data_flow == b""

    w.selected = {"side": "target", "index": 9}
    w.wait()
    assert w.ready_row == {"flow": row(9, [1, 2, 3])} and w.ready["flow"] == []
    data = decoded(w, "flow")
    np.testing.assert_allclose(data[:, 9], reference[:, 9], atol=2e-5)  # payload quantisation
    assert not np.delete(data, 9, axis=1).any()  # only the pinned row is known

    # A whole layer on request: that layer is complete, the others still hold the pinned row.
    w.compute("flow", [2], wait=True)
    assert w.ready["flow"] == [2] and w.ready_row == {"flow": row(9, [1, 3])}
    data = decoded(w, "flow")
    np.testing.assert_allclose(data[1], reference[1], atol=2e-5)
    np.testing.assert_allclose(data[2, 9], reference[2, 9], atol=2e-5)
    assert not np.delete(data[2], 9, axis=0).any()

    # The whole-model view pins nodes by layer; the same token's row is cached, another is computed.
    w.selected = {"layer": 3, "index": 9}
    assert w.ready_row == {"flow": row(9, [1, 3])}
    w.selected = {"layer": 1, "index": 20}
    w.wait()
    assert w.ready_row == {"flow": row(20, [1, 3])}
    np.testing.assert_allclose(decoded(w, "flow")[2, 20], reference[2, 20], atol=2e-5)


def test_other_methods_compute_no_row_and_choosing_a_flow_method_does(long_widget):
    w = long_widget
    w.method = "rollout"
    w.selected = {"side": "target", "index": 4}
    w.wait()
    assert "flow_rf" not in w.ready_row
    w.method = "flow_rf"  # choosing a deferred flow method with a token pinned computes its row
    w.wait()
    assert w.ready_row["flow_rf"] == row(4, [1, 2, 3])
    expected = w.analysis.flow_rows(4, receptive_field="rf-b").numpy()
    np.testing.assert_allclose(decoded(w, "flow_rf")[:, 4], expected, atol=2e-5)
    w.selected = {}  # unpinning keeps what was sent
    assert w.ready_row["flow_rf"] == row(4, [1, 2, 3])


@pytest.mark.parametrize(
    "view,layer,pin,steps",
    [  # the shown layer, the closed-form layers 1-2 together, then the others nearest the shown one first
        ("layer", 4, {"side": "target", "index": 9}, [[4], [1, 2], [3], [5]]),
        ("layer", 2, {"side": "target", "index": 9}, [[1, 2], [3], [4], [5]]),
        ("model", 1, {"layer": 5, "index": 9}, [[5], [1, 2], [4], [3]]),  # whole model: the pinned node's layer
    ],
)
def test_the_row_arrives_layer_by_layer_the_shown_layer_first(tokenizer, view, layer, pin, steps):
    w = AttentionWidget(tiny_model("gpt2", n_layer=5), LONG_TEXT, tokenizer, method="flow", layer=layer, view=view)
    assert w.ready["flow"] == []
    reference = methods.flow(w.analysis.raw().double()).numpy()
    published = []  # (ready_row entry, data) at each publish: data_flow is set before ready_row
    w.observe(lambda change: published.append((change["new"].get("flow"), decoded(w, "flow"))), "ready_row")
    w.selected = pin
    w.wait()

    # First "coming" with no layer, then each step added as it finishes; "coming" until the last.
    done = [sorted(sum(steps[: k + 1], [])) for k in range(len(steps))]
    assert [entry["layers"] for entry, _ in published] == [[], *done]
    assert [entry["computing"] for entry, _ in published] == [True] * len(steps) + [False]
    for entry, data in published:  # every publish holds finished layers only, each exact
        rows = [layer - 1 for layer in entry["layers"]]
        np.testing.assert_allclose(data[rows, 9], reference[rows, 9], atol=2e-5)
        assert not np.delete(data[:, 9], rows, axis=0).any() and not np.delete(data, 9, axis=1).any()
