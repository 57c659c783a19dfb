"""compare_method and compare_mode: a second method drawn beside the first, checked in Python with a
one-sentence error (unknown id, a token-score method, a method drawn on another graph)."""

from __future__ import annotations

import pytest
import traitlets
from tiny_models import tiny_model

from attn_widget import AttentionWidget, checks

TEXT = "the cat sat on the mat"


@pytest.fixture(scope="module")
def widget(tokenizer):
    return AttentionWidget(tiny_model("bert"), TEXT, tokenizer)


@pytest.fixture
def fresh(widget):
    """The module's widget with its comparison settings as made, after the test."""
    yield widget
    widget.method, widget.compare_method, widget.compare_mode = "raw", "", "side"


def test_off_by_default_and_declared_once_as_view_options(widget):
    assert (widget.compare_method, widget.compare_mode) == ("", "side")
    assert {"compare_method", "compare_mode"} <= set(widget._VIEW_OPTIONS)  # initial state, front end, saves
    state = widget.get_state()
    assert state["compare_method"] == "" and state["compare_mode"] == "side"


def test_comparable_methods_are_accepted(fresh):
    fresh.compare_method = "effective"
    fresh.compare_mode = "difference"
    fresh.method, fresh.compare_method = "rollout", "flow"
    assert (fresh.method, fresh.compare_method) == ("rollout", "flow")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nope", r"^compare_method must be '' \(off\) or one of \['raw', .*; got 'nope'\.$"),
        ("saliency", r"^compare_method 'saliency' is a token-score method .* show it with attribution='saliency'"),
        (
            "rollout",
            r"^compare_method 'rollout' cannot be compared with method 'raw': 'rollout' draws edges from the input "
            r"tokens in every layer, 'raw' draws edges from the layer before in every layer; choose one of "
            r"\['raw', 'binarised', .*\], or another method first\.$",
        ),
    ],
)
def test_bad_comparisons_are_refused_in_one_sentence(fresh, value, message):
    with pytest.raises(traitlets.TraitError, match=message):
        fresh.compare_method = value
    assert fresh.compare_method == ""


def test_bad_mode_is_refused(fresh):
    with pytest.raises(traitlets.TraitError, match=r"compare_mode must be 'side' or 'difference'; got 'sum'\."):
        fresh.compare_mode = "sum"


def test_a_method_drawing_another_graph_turns_the_comparison_off(fresh):
    fresh.compare_method = "effective"
    fresh.method = "effective"  # the same graph: kept
    assert fresh.compare_method == "effective"
    fresh.method = "rollout"  # from the input tokens: a comparison with a per-layer method draws nothing true
    assert fresh.compare_method == ""


def test_initial_state_is_checked_against_the_method_whatever_the_order(widget):
    w = AttentionWidget(analysis=widget.analysis, compare_method="flow", method="rollout")
    assert (w.method, w.compare_method) == ("rollout", "flow")
    with pytest.raises(traitlets.TraitError, match="cannot be compared with method 'raw'"):
        AttentionWidget(analysis=widget.analysis, compare_method="flow")


def test_the_front_end_is_checked_as_python_is(fresh):
    fresh.set_state({"compare_method": "rollout"})  # refused: logged, and the kernel's value sent back
    assert fresh.compare_method == ""
    fresh.set_state({"method": "rollout", "compare_method": "flow"})  # one message: checked together
    assert (fresh.method, fresh.compare_method) == ("rollout", "flow")


def test_methods_defined_in_other_layers_are_not_comparable():
    """An encoder-decoder's cross-attention exists in the decoder's layers only (checks.comparable)."""
    cross = {"id": "cross", "cumulative": False, "layers": [4, 5, 6]}
    encoder = {"id": "encoder", "cumulative": False, "layers": [1, 2, 3]}
    with pytest.raises(ValueError, match=r"'cross' draws edges from the layer before in layers 4 to 6, 'encoder'"):
        checks.compare_method("cross", encoder, [encoder, cross], [])
    assert checks.compare_method("encoder", encoder, [encoder, cross], []) == "encoder"
