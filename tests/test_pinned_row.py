"""Flow on a long input: pinning a token computes its row at every layer in the background
(attn_widget/pinned_row.py), sent inside the method's data while whole layers stay on request."""

from __future__ import annotations

import numpy as np
import pytest
from test_widget import LONG_TEXT
from tiny_models import tiny_model

from attn_widget import AttentionWidget, methods, payload


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
    assert w.ready_row == {"flow": 9} and w.ready["flow"] == []
    data = decoded(w, "flow")
    np.testing.assert_allclose(data[:, 9], reference[:, 9], atol=2e-5)  # payload quantisation
    assert not np.delete(data, 9, axis=1).any()  # only the pinned row is known

    # A whole layer on request: that layer is complete, the others still hold the pinned row.
    w.compute("flow", [2], wait=True)
    assert w.ready["flow"] == [2] and w.ready_row == {"flow": 9}
    data = decoded(w, "flow")
    np.testing.assert_allclose(data[1], reference[1], atol=2e-5)
    np.testing.assert_allclose(data[2, 9], reference[2, 9], atol=2e-5)
    assert not np.delete(data[2], 9, axis=0).any()

    # The whole-model view pins nodes by layer; the same token's row is cached, another is computed.
    w.selected = {"layer": 3, "index": 9}
    assert w.ready_row == {"flow": 9}
    w.selected = {"layer": 1, "index": 20}
    w.wait()
    assert w.ready_row == {"flow": 20}
    np.testing.assert_allclose(decoded(w, "flow")[2, 20], reference[2, 20], atol=2e-5)


def test_other_methods_compute_no_row_and_choosing_a_flow_method_does(long_widget):
    w = long_widget
    w.method = "rollout"
    w.selected = {"side": "target", "index": 4}
    w.wait()
    assert "flow_rf" not in w.ready_row
    w.method = "flow_rf"  # choosing a deferred flow method with a token pinned computes its row
    w.wait()
    assert w.ready_row["flow_rf"] == 4
    expected = w.analysis.flow_rows(4, receptive_field="rf-b").numpy()
    np.testing.assert_allclose(decoded(w, "flow_rf")[:, 4], expected, atol=2e-5)
    w.selected = {}  # unpinning keeps what was sent
    assert w.ready_row["flow_rf"] == 4
