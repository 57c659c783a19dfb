"""Bad input gets a clear error that says what is wrong and what to do."""

from __future__ import annotations

import pytest
import torch
from tiny_models import tiny_model, tiny_tokenizer

from attn_widget import AttentionWidget, UnsupportedModelError, analyze


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
    with pytest.raises(ValueError, match="vocabulary has 8 entries"):
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
    with pytest.raises(UnsupportedModelError, match="encoder-decoder"):
        analyze(tf.T5Model(config), "the cat", tokenizer)


def test_model_on_the_meta_device(tokenizer):
    with torch.device("meta"):
        model = tiny_model("bert", dtype=torch.float32)
    with pytest.raises(UnsupportedModelError, match="meta device: they were never loaded"):
        analyze(model, "the cat", tokenizer)


def test_a_model_split_across_devices_is_refused_in_one_sentence(tokenizer):
    """device_map="auto" spreads a model that does not fit one device over several (accelerate records them in
    ``hf_device_map``). Only a CPU is here, so the map is written as accelerate writes it for a model whose
    embeddings stay on the GPU and whose layers go to the CPU; a map naming one device is read as usual."""
    model = tiny_model("gpt2", dtype=torch.float32)
    model.hf_device_map = {"": "cpu"}
    analyze(model, "the cat", tokenizer)
    model.hf_device_map = {"transformer.wte": 0, "transformer.h": "cpu", "lm_head": 0}
    with pytest.raises(UnsupportedModelError, match=r"split across devices \(cpu, cuda:0; device_map=\"auto\""):
        analyze(model, "the cat", tokenizer)
    # Layers offloaded to disk sit on the meta device until used: named as split, not as never loaded.
    model.hf_device_map = {"transformer.wte": "cpu", "transformer.h": "disk"}
    attention = model.h[0].attn.c_attn
    attention.weight = torch.nn.Parameter(torch.empty_like(attention.weight, device="meta"))
    with pytest.raises(UnsupportedModelError, match=r"split across devices \(cpu, disk;"):
        analyze(model, "the cat", tokenizer)


@pytest.mark.parametrize(
    "wrong,message",
    [
        (lambda text, **kwargs: {"input_ids": torch.tensor([[1, 2]])}, "transformers tokenizer.*got builtins.function"),
        ("model", "got the model BertModel. The order is AttentionWidget\\(model, text, tokenizer\\)"),
        ("backend", "tokenizers.Tokenizer.*PreTrainedTokenizerFast\\(tokenizer_object=...\\)"),
    ],
)
def test_tokenizer_that_is_not_a_tokenizer(bert, tokenizer, wrong, message):
    if wrong == "model":
        wrong = bert
    elif wrong == "backend":
        wrong = tokenizer.backend_tokenizer
    with pytest.raises(TypeError, match=message):
        analyze(bert, "the cat", wrong)


def test_text_with_a_lone_surrogate(bert, tokenizer):
    with pytest.raises(ValueError, match="lone surrogate \\(U\\+D800 at character 4\\)"):
        analyze(bert, "the \ud800cat", tokenizer)


@pytest.mark.model
@pytest.mark.parametrize("text", ["\u200b\u200b", "\x00\x01\x02", "\ufeff \u200d"])
def test_text_of_special_tokens_only(minilm, text):
    """BERT's normaliser drops control and zero-width characters, leaving [CLS] [SEP]."""
    model, tokenizer = minilm
    with pytest.raises(ValueError, match="special tokens only \\(\\['\\[CLS\\]', '\\[SEP\\]'\\]\\)"):
        analyze(model, text, tokenizer)


@pytest.mark.model
def test_minilm_with_the_shipped_decoders_tokenizer(minilm):
    """Every id of the 4,096-token GPT-2 tokenizer fits MiniLM's 30,522 rows: only the sizes tell."""
    from attn_widget.demo import pydoc_gpt2

    model, _ = minilm
    _, gpt2_tokenizer = pydoc_gpt2()
    with pytest.raises(ValueError, match="knows 4096 tokens .* vocabulary has 30522 entries: tokenizer and model"):
        analyze(model, "The cat sat on the mat.", gpt2_tokenizer)


def test_swapped_model_and_text_are_called_swapped(bert, tokenizer):
    """Issue 36: a sentence where the model goes was answered with advice to load it as a model name."""
    swapped = r"^The arguments look swapped: model is the string 'the cat sat' and text is a BertModel\. "
    with pytest.raises(TypeError, match=swapped + r"Pass the model first: AttentionWidget\(model, text\)"):
        AttentionWidget("the cat sat", bert, tokenizer)
    with pytest.raises(TypeError, match=swapped + r"Pass the model first: analyze\(model, text\)"):
        analyze("the cat sat", bert, tokenizer)
    with pytest.raises(TypeError, match=swapped):
        analyze("the cat sat", bert)  # before a tokenizer is looked for
    with pytest.raises(TypeError, match=r"not the string 'the cat sat', which looks like a sentence, not a model name"):
        analyze("the cat sat", "the dog ran")
    with pytest.raises(TypeError) as refused:
        analyze("the cat sat", "the dog ran")
    assert "from_pretrained('the cat sat'" not in str(refused.value)


def test_targets_with_swapped_or_wrong_arguments_say_so():
    from attn_widget import targets

    def fn(outputs):
        return outputs.logits[:, 0, 0]

    cases = [
        (lambda: targets.function(0, fn), TypeError, r"The arguments look swapped: pass function\(fn, position=0\)"),
        (lambda: targets.function("fn"), TypeError, r"fn must be a function of the model outputs"),
        (lambda: targets.function(fn, position='"]'), TypeError, r"position must be a token index \(an int\)"),
        (lambda: targets.function(fn, position=True), TypeError, r"position must be a token index \(an int\)"),
        (lambda: targets.token(3, "cat"), TypeError, r"The arguments look swapped: pass token\('cat', position=3\)"),
        (lambda: targets.token(3, 1.5), TypeError, r"position must be a token index \(an int\)"),
        (lambda: targets.token(True), TypeError, r"token must be a token string or a token id"),
        (
            lambda: targets.next_token("actual", 3),
            TypeError,
            r"The arguments look swapped: pass next_token\(3, 'actual'\)",
        ),
        (lambda: targets.next_token("3"), TypeError, r"position must be a token index \(an int\)"),
        (lambda: targets.class_logit(1.0), TypeError, r"label must be a class index \(an int\) or a class name"),
        (lambda: targets.similarity(3), TypeError, r"other_text must be a string"),
    ]
    for make, error, message in cases:
        with pytest.raises(error, match=message):
            make()
