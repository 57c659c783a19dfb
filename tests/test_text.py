"""display_token: any token text made safe to show and to serialise (attn_widget/text.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from payload_fixtures import UNSAFE_TOKENS

from attn_widget.text import display_token


def test_controls_become_visible():
    assert display_token("a\nb\tc") == "a↵b⇥c"
    assert [display_token(chr(c)) for c in (0x00, 0x0D, 0x1B, 0x1F, 0x7F)] == [
        "\\x00",
        "\\x0d",
        "\\x1b",
        "\\x1f",
        "\\x7f",
    ]
    assert [display_token(chr(c)) for c in (0x80, 0x85, 0x9F)] == ["\\x80", "\\x85", "\\x9f"]
    assert display_token("evil\u202egnp.exe") == "evil\\u202egnp.exe"  # a right-to-left override
    assert display_token("zero\u200bwidth\ufeff") == "zero\\u200bwidth\\ufeff"
    assert display_token("line\u2028break") == "line\\u2028break"


def test_surrogates_and_noncharacters():
    assert display_token("\ud800") == display_token("a\udfff")[1:] == "\ufffd"
    assert display_token("\ud83d\ude00") == "😀"  # a pair is the character it encodes
    assert display_token("\ufffe\uffff") == "\ufffd\ufffd"


def test_text_that_shows_as_itself_is_kept():
    for text in ["cat", " the", "שלום", "القط", "e\u0301", "👍🏽", "<b>&amp;</b>", "\\x85", "\xa0", "↵", "␊"]:
        assert display_token(text) == text
    assert display_token("") == "∅"


@pytest.mark.parametrize("token", UNSAFE_TOKENS, ids=ascii)
def test_every_result_is_utf8_and_xml_text_and_stays_as_it_is(token):
    shown = display_token(token)
    shown.encode("utf-8")
    element = ET.fromstring(f"<t>{shown.replace('&', '&amp;').replace('<', '&lt;')}</t>")  # XML 1.0 parser
    assert element.text == shown
    assert json.loads(json.dumps(shown, ensure_ascii=False)) == shown
    assert display_token(shown) == shown


def test_only_strings_are_tokens():
    with pytest.raises(TypeError, match="a token's text must be a string; got int"):
        display_token(3)
