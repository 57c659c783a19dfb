"""The costly mixing methods in the widget: computed with it for short texts, on request (layer by
layer, finished layers kept) for long ones; their rollouts show the layers whose maps below are done."""

from __future__ import annotations

import torch
from tiny_models import tiny_model

from attn_widget import AttentionWidget, analyze, payload
from attn_widget.methods import hidden_attribution

LONG_TEXT = " ".join(["the cat sat on the mat and the dog ran to the big red house"] * 4)  # 58 tokens


def test_value_zeroing_is_computed_on_request_for_long_inputs(tokenizer):
    w = AttentionWidget(tiny_model("gpt2"), LONG_TEXT, tokenizer)
    meta = {m["id"]: m for m in w.methods}
    assert w.ready["value_zeroing"] == [] and w.ready["value_zeroing_rollout"] == []
    n = len(w.tokens)
    assert f"{n} tokens need {n} re-runs of the layer" in meta["value_zeroing"]["on_request"]
    assert meta["alti"]["on_request"] == ""  # computed with the widget

    w.compute("value_zeroing", [2], wait=True)
    assert w.ready["value_zeroing"] == [2] and w.ready["value_zeroing_rollout"] == []
    w.compute("value_zeroing_rollout", [1], wait=True)
    assert w.ready["value_zeroing"] == [1, 2] and w.ready["value_zeroing_rollout"] == [1, 2]

    reference = analyze(tiny_model("gpt2"), LONG_TEXT, tokenizer)
    maps = reference.mixing("value_zeroing")
    shown = payload.decode(w.data_value_zeroing)["matrices"]
    assert torch.allclose(torch.from_numpy(shown[1]), maps[1], atol=2e-5)  # quantised view data
    assert not shown[2].any()  # layer 3 not computed yet
    exported = torch.from_numpy(w.to_numpy()["value_zeroing_rollout"][1])
    assert torch.allclose(exported, reference.mixing_rollout("value_zeroing")[1], atol=1e-12)


def test_hidden_attribution_is_with_the_widget_for_short_inputs_only(tokenizer, monkeypatch):
    short = AttentionWidget(tiny_model("bert"), "the cat sat", tokenizer)  # 5 tokens · width 32
    assert short.ready["hidden_attribution"] == []  # computed when first selected
    short.method = "hidden_attribution"
    short.wait()
    assert short.ready["hidden_attribution"] == [1, 2, 3]
    rows = payload.decode(short.data_hidden_attribution)["matrices"].sum(-1)
    assert abs(rows - 1).max() < 1e-3

    monkeypatch.setattr(hidden_attribution, "UPFRONT_MAX_COORDINATES", 5 * 32 - 1)
    deferred = AttentionWidget(tiny_model("bert"), "the cat sat", tokenizer)
    assert deferred.ready["hidden_attribution"] == []
    assert "160 forward-mode passes" in {m["id"]: m for m in deferred.methods}["hidden_attribution"]["on_request"]
    deferred.compute("hidden_attribution", [3], wait=True)  # all layers come at once
    assert deferred.ready["hidden_attribution"] == [1, 2, 3]
    assert deferred.data_hidden_attribution == short.data_hidden_attribution
