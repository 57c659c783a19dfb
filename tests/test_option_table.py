"""The view's options are declared once per side: Python's traits (attn_widget/widget_traits.py) and the front
end's option table (js/src/options.js, read here through Node) name the same options with the same choices,
defaults and bounds; and an option added as one entry on the Python side is accepted as the others are (its
control from one entry on the JS side: js/test/controls.test.js)."""

from __future__ import annotations

import pytest
import traitlets as t
from front_end_options import front_end_options
from tiny_models import tiny_model, tiny_tokenizer

from attn_widget import AttentionWidget
from attn_widget.traits import Choice, Count, option

TABLE = {entry["trait"]: entry for entry in front_end_options()["options"]}
TRAITS = AttentionWidget.class_traits()


def test_both_sides_name_the_same_options_picks_and_facts():
    assert set(TABLE) == set(AttentionWidget._VIEW_OPTIONS)
    assert set(front_end_options()["picks"]) == set(AttentionWidget._FROM_FRONT_END) - set(TABLE)
    assert set(front_end_options()["facts"]) == set(AttentionWidget._FACTS)


@pytest.mark.parametrize("name", [name for name, entry in TABLE.items() if entry["kind"] == "choice"])
def test_a_choice_offers_the_same_values_in_the_same_order(name):
    assert isinstance(TRAITS[name], Choice), f"{name} is a choice in options.js but not a Choice trait"
    assert [value for value, _text in TABLE[name]["choices"]] == list(TRAITS[name].values)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_a_missing_value_reads_as_pythons_default(name):
    """What the front end falls back to for a missing or refused value is Python's default: the same picture
    before and after the first state arrives."""
    python, front_end = TRAITS[name].default(), TABLE[name]["default"]
    if name == "window":  # [first row, rows] in the trait, {start, size} in the view state
        front_end = [front_end["start"], front_end["size"]]
    if name == "method":  # "" reads as the first method offered: Python's default is the first of a text's
        widget = AttentionWidget(tiny_model("bert"), "the cat sat", tiny_tokenizer())
        assert front_end == "" and widget.methods[0]["id"] == python
        return
    assert front_end == python and type(front_end) in (type(python), int)


@pytest.mark.parametrize("name", [name for name, trait in TRAITS.items() if name in TABLE and isinstance(trait, Count)])
def test_a_count_has_the_same_bounds(name):
    assert (TABLE[name]["low"], TABLE[name]["high"]) == (TRAITS[name].min, TRAITS[name].max)


def test_every_control_declared_in_the_table_is_of_a_kind_the_bar_builds():
    for name, entry in TABLE.items():
        if isinstance(entry["control"], dict):
            assert entry["kind"] in ("choice", "count", "number"), name
            assert entry["control"]["label"], name


class ToyWidget(AttentionWidget):
    """One more option, declared as one entry: a choice (checked by its trait) and a count checked against the
    analysed text (a ``check``)."""

    toy = option(Choice(("a", "b"), "a", help="A toy choice."))
    toy_layers = option(
        t.Int(1, help="A toy count of layers."),
        lambda self, value: value if 1 <= value <= self.n_layers else _refuse(f"toy_layers must be 1..{self.n_layers}"),
    )


def _refuse(message: str):
    raise ValueError(message)


def test_an_option_added_as_one_entry_is_accepted_and_checked_like_the_others(tokenizer):
    widget = ToyWidget(tiny_model("bert"), "the cat sat", tokenizer, toy="b")
    assert widget.toy == "b" and widget._VIEW_OPTIONS[-2:] == ("toy", "toy_layers")
    assert "toy" not in AttentionWidget._VIEW_OPTIONS  # the base class is left as it was
    widget.set_state({"toy": "a", "toy_layers": 2})  # from the front end
    assert (widget.toy, widget.toy_layers) == ("a", 2)
    widget.set_state({"toy": "c"})  # refused whole, the front end told the kernel's values
    widget.set_state({"toy_layers": 99})
    assert (widget.toy, widget.toy_layers) == ("a", 2)
    with pytest.raises(t.TraitError, match=f"toy_layers must be 1..{widget.n_layers}"):
        widget.toy_layers = widget.n_layers + 1
    assert widget.get_state()["toy"] == "a"
