"""What an encoder-decoder is given (issue 36): the tokenizer's outputs the model does not take are dropped on both
paths (its own greedy output and a given target), and a bad target is refused as a bad text is, called "target"."""

from __future__ import annotations

import pytest
import torch
from tokenizers import normalizers
from zoo import FAMILIES, zoo_tokenizer

from attn_widget import AttentionWidget, analyze

SOURCE = "the cat sat on the mat"
TARGET = "a dog ran to the house"
SEQ2SEQ = {f.name: f for f in FAMILIES if f.expect == "seq2seq"}


def bert_style():
    """The zoo's tokenizer returning token_type_ids too, as BERT-style tokenizers do."""
    tokenizer = zoo_tokenizer()
    tokenizer.model_input_names = ["input_ids", "token_type_ids", "attention_mask"]
    assert "token_type_ids" in tokenizer(SOURCE)
    return tokenizer


@pytest.mark.parametrize("name", ["T5", "BART"])
def test_inputs_the_model_does_not_take_are_dropped_on_both_paths(name):
    """T5 and BART take no token_type_ids: model.generate refused them ("model_kwargs not used"), so the greedy
    path failed where target= worked; both now give the model what the plain tokenizer gives it."""
    model = SEQ2SEQ[name].build()
    plain = analyze(model, SOURCE, zoo_tokenizer())
    for target in (None, TARGET):
        analysis = analyze(model, SOURCE, bert_style(), target=target)
        assert "token_type_ids" not in (analysis.encoder.capture.model_inputs or {})
        expected = plain if target is None else analyze(model, SOURCE, zoo_tokenizer(), target=target)
        assert analysis.target_ids.tolist() == expected.target_ids.tolist()
        assert torch.equal(analysis.cross_attentions, expected.cross_attentions)
        assert torch.equal(analysis.attribution("saliency"), expected.attribution("saliency"))
    widget = AttentionWidget(model, "a cat sat", bert_style())
    assert widget.tokens


@pytest.mark.parametrize(
    "target,error,message",
    [
        (42, TypeError, "target must be a string; got int"),
        (["a dog", "a cat"], TypeError, "target must be a single string; got a list of 2 items"),
        ("  \n", ValueError, "target is empty"),
        ("a \ud800dog", ValueError, r"target contains a lone surrogate \(U\+D800 at character 2\)"),
    ],
)
def test_a_bad_target_is_called_target(target, error, message):
    model = SEQ2SEQ["T5"].build()
    with pytest.raises(error, match=message) as refused:
        analyze(model, SOURCE, zoo_tokenizer(), target=target)
    assert "text" not in str(refused.value).split(";")[0].split(":")[0]


def test_a_target_of_control_characters_is_refused_as_the_text_is():
    """A tokenizer that drops control characters (BERT's normaliser) turns "\\x00\\x01" into special tokens only:
    the source was refused for it, the target went to the decoder as [CLS] [SEP]."""
    tokenizer = zoo_tokenizer()
    tokenizer.backend_tokenizer.normalizer = normalizers.BertNormalizer(lowercase=False)
    model = SEQ2SEQ["T5"].build()
    with pytest.raises(ValueError, match=r"turned the text into special tokens only"):
        analyze(model, "\x00\x01", tokenizer, target=TARGET)
    for target in ("\x00\x01", "\u200b\ufeff"):
        with pytest.raises(
            ValueError, match=r"turned the target into special tokens only \(\['\[CLS\]', '\[SEP\]'\]\)"
        ):
            analyze(model, SOURCE, tokenizer, target=target)
