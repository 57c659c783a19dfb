"""The colour map of a method is declared once, by the method (issue 34): the front end draws a method on
the diverging map when its meta says ``signed`` (js/src/colormap.js isSigned), on every layer, text and
pane alike. These tests hold the declaration to the values: a method whose values can be negative says so,
and a signed method keeps saying so on a text where its values happen to be all positive."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from attn_widget import AttentionWidget
from attn_widget.demo import pydoc_gpt2

SHORT = "The for statement is used to iterate over the elements of a sequence."
LONG = (
    "The for statement is used to iterate over the elements of a sequence (such as a string, tuple or list) "
    "or other iterable object. The expression list is evaluated once; it should yield an iterable object."
)


@pytest.fixture(scope="module")
def widgets():
    model, tokenizer = pydoc_gpt2()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "effective attention equals attention" on the short text
        return {name: AttentionWidget(model, text, tokenizer) for name, text in (("short", SHORT), ("long", LONG))}


def test_a_method_with_negative_values_is_declared_signed(widgets):
    """Every method sent with the widget (not on request): negative values anywhere imply ``signed``."""
    for name, widget in widgets.items():
        data = widget.to_numpy()
        for meta in widget.methods:
            if meta.get("on_request") or meta["id"] not in data:
                continue
            if (np.asarray(data[meta["id"]]) < 0).any():
                assert meta["signed"], (name, meta["id"])


def test_effective_attention_is_signed_where_its_values_are_not(widgets):
    """Course 07: effective attention of the short text equals attention (all positive), of the long text it
    has negative edges; both widgets declare it signed, so both draw it on the one diverging map."""
    short, long = (widgets[name] for name in ("short", "long"))
    assert (short.to_numpy()["effective"] >= 0).all()
    assert (long.to_numpy()["effective"] < 0).any()
    for widget in (short, long):
        metas = {m["id"]: m for m in widget.methods}
        assert metas["effective"]["signed"] is True
        assert metas["raw"]["signed"] is False and metas["rollout"]["signed"] is False
