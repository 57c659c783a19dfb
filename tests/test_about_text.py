"""The "About this method" texts read once through: no registered method's text (decoders' and encoders'
menu, the encoder-decoder menu, in English and in the Chinese the zh interface shows) says the same thing
twice. A rolled-out context-mixing map's text is composed from its per-layer map's (issue 34: ALTI, rolled
out, said how the colour goes twice)."""

from __future__ import annotations

import json
import pathlib
import re
from collections import Counter

import pytest

import attn_widget.methods  # noqa: F401  (registers the methods)
from attn_widget.joint_methods import METHODS as JOINT_METHODS
from attn_widget.methods.registry import matrix_methods

ZH = json.loads((pathlib.Path(__file__).resolve().parents[1] / "js/src/locale/zh.json").read_text(encoding="utf-8"))
METHODS = [*matrix_methods(), *JOINT_METHODS]


def about(method) -> str:
    """What the About panel says of a method: its explanation, then when to trust it (where it has one)."""
    return " ".join(part for part in (method.explain, getattr(method, "trust", "")) if part)


def repeated(text: str) -> list[str]:
    """The sentences and clauses (split at . ; : before a space, and at their Chinese forms) said more than
    once. Short pieces ("Definition:", "定义：") are left out: a label may recur, a statement may not."""
    pieces = [p.strip(" ()（）").lower() for p in re.split(r"(?<=[.;:])\s+|(?<=[。；：])", text)]
    long = [p for p in pieces if len(p.split()) >= 5 or (not p.isascii() and len(p) >= 8)]
    return [piece for piece, count in Counter(long).items() if count > 1]


def test_the_checker_finds_a_repeated_clause():
    assert repeated(
        "An edge means: a share; the colour goes from pale to dark. Rows: the colour goes from pale to dark."
    )
    assert not repeated("An edge means: a share. Definition: M. Definition: R.")


@pytest.mark.parametrize("method", METHODS, ids=[f"{m.group}:{m.id}" for m in METHODS])
def test_no_about_text_says_a_sentence_twice(method):
    text = about(method)
    assert text, f"{method.id} has no About text"
    assert not repeated(text), f"{method.id}'s About text repeats {repeated(text)}"
    for part in (method.explain, getattr(method, "trust", "")):
        if part in ZH:
            assert not repeated(ZH[part]), f"{method.id}'s Chinese About text repeats {repeated(ZH[part])}"
