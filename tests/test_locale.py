"""The widget's language tables (js/src/locale/*.json, read by js/src/i18n.js): every phrase the
front end translates has an entry, no entry is stale, and every entry keeps its placeholders."""

from __future__ import annotations

import json
import re
import warnings

import pytest
from locale_keys import SRC, js_phrases, python_phrases, widget_phrases
from tiny_models import tiny_classifier, tiny_lm, tiny_model, tiny_tokenizer

from attn_widget import AttentionWidget, demo
from attn_widget.corpus.statistics import STATISTICS, describe
from attn_widget.corpus.widget import CorpusWidget

TABLES = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in (SRC / "locale").glob("*.json")}


@pytest.fixture(scope="module")
def phrases() -> set[str]:
    """What the front end translates, from its sources and from widgets of every kind of model: an encoder,
    a decoder with a language-model head, a classifier, an encoder-decoder and a vision transformer; and
    the CorpusWidget's words, with what each of its columns measures."""
    found = js_phrases() | python_phrases() | {describe(name) for name in [*STATISTICS, "importance"]}
    text = "the cat sat on the mat"
    bart, bart_tokenizer = demo.reversal_bart()
    vit, images, _labels = demo.digits_vit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        widgets = [
            AttentionWidget(tiny_model("bert"), text, tiny_tokenizer()),
            AttentionWidget(tiny_lm(), text, tiny_tokenizer(with_specials=False)),
            AttentionWidget(tiny_classifier(), text, tiny_tokenizer()),
            AttentionWidget(bart, "one two three", bart_tokenizer),
            AttentionWidget(vit, images[0]),
        ]
    for widget in widgets:
        found |= widget_phrases(widget)
    return found


@pytest.mark.parametrize("lang", sorted(TABLES))
def test_every_phrase_has_a_translation_and_none_is_stale(lang, phrases):
    table = TABLES[lang]
    missing = sorted(phrases - set(table))
    assert not missing, f"{len(missing)} phrases lack a translation in js/src/locale/{lang}.json: {missing[:5]}"
    stale = sorted(set(table) - phrases)
    assert not stale, f"{len(stale)} entries of js/src/locale/{lang}.json translate nothing shown: {stale[:5]}"


@pytest.mark.parametrize("lang", sorted(TABLES))
def test_translations_keep_their_placeholders(lang):
    placeholders = re.compile(r"\{(\w+)\}")
    for english, translated in TABLES[lang].items():
        assert sorted(placeholders.findall(english)) == sorted(placeholders.findall(translated)), english
        assert translated.strip(), english


def test_the_lang_trait_offers_exactly_the_languages_the_front_end_has():
    offered = set(AttentionWidget.class_traits()["lang"].values)
    in_front_end = set(re.findall(r'\["(\w+)", "[^"]+"\]', (SRC / "i18n.js").read_text(encoding="utf-8")))
    assert offered == in_front_end == {"en", *TABLES} == set(CorpusWidget.class_traits()["lang"].values)


def test_an_unknown_language_is_refused_with_the_choices(tokenizer):
    widget = AttentionWidget(tiny_model("bert"), "the cat sat", tokenizer, lang="zh")
    assert widget.lang == "zh"
    with pytest.raises(Exception, match="lang.*'en'.*'zh'"):
        widget.lang = "fr"
