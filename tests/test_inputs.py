"""Bad input gets a clear error that says what is wrong and what to do."""

from __future__ import annotations

import pytest
import torch
from tiny_models import tiny_model, tiny_tokenizer

from attn_widget import AttentionWidget, analyze


@pytest.fixture(scope="module")
def bert():
    return tiny_model("bert")


def test_empty_text(bert, tokenizer):
    for text in ["", "   \n"]:
        with pytest.raises(ValueError, match="text is empty"):
            analyze(bert, text, tokenizer)


def test_batch_of_texts(bert, tokenizer):
    with pytest.raises(TypeError, match="single string; got a list of 2 items"):
        AttentionWidget(bert, ["the cat", "the dog"], tokenizer)


def test_text_that_is_not_a_string(bert, tokenizer):
    with pytest.raises(TypeError, match="text must be a string; got int"):
        analyze(bert, 42, tokenizer)


def test_text_longer_than_the_model_accepts(tokenizer):
    model = tiny_model("bert", max_position_embeddings=16)
    with pytest.raises(ValueError, match="23 tokens long but the model accepts at most 16"):
        analyze(model, " ".join(["cat"] * 21), tokenizer)


def test_not_a_transformers_model(tokenizer):
    with pytest.raises(TypeError, match="PreTrainedModel.*got torch.nn.modules.linear.Linear"):
        analyze(torch.nn.Linear(3, 3), "the cat", tokenizer)
    with pytest.raises(TypeError, match="not the string 'bert-base-uncased'.*from_pretrained"):
        analyze("bert-base-uncased", "the cat", tokenizer)
    with pytest.raises(TypeError, match="not the string 'bert-base-uncased'"):
        analyze("bert-base-uncased", "the cat")  # the model is checked before a tokenizer is looked for


def test_missing_tokenizer_says_to_pass_one(bert):
    with pytest.raises(ValueError, match="Pass tokenizer="):
        analyze(bert, "the cat")


def test_tokenizer_that_does_not_match_the_model():
    model = tiny_model("bert", vocab_size=8)
    with pytest.raises(ValueError, match="vocabulary has only 8 entries"):
        analyze(model, "the quickly", tiny_tokenizer())


def test_tokenizer_loaded_from_the_model_path(tmp_path, tokenizer):
    model = tiny_model("bert")
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    from transformers import AutoModel

    reloaded = AutoModel.from_pretrained(tmp_path)
    assert analyze(reloaded, "the cat").tokens == ["[CLS]", "the", "cat", "[SEP]"]


def test_encoder_decoder_models_are_refused_clearly(tokenizer):
    import transformers as tf

    config = tf.T5Config(d_model=32, d_ff=64, num_layers=2, num_heads=4, d_kv=8, vocab_size=30)
    with pytest.raises(NotImplementedError, match="encoder-decoder"):
        analyze(tf.T5Model(config), "the cat", tokenizer)
