"""Tiny random models of every supported family, built offline from configs (docs/methods.md §0.4)."""

from __future__ import annotations

import torch
import transformers as tf
from tokenizers import Tokenizer, models, pre_tokenizers, processors

WORDS = "the a cat dog sat on mat and ran to house big small red blue it was very quickly slowly".split()
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def tiny_tokenizer(with_specials: bool = True) -> tf.PreTrainedTokenizerFast:
    """A word-level tokenizer over a fixed vocabulary; adds [CLS] ... [SEP] when asked."""
    vocab = {w: i for i, w in enumerate(SPECIALS + WORDS)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    if with_specials:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
        )
    return tf.PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_max_length=64,
    )


VOCAB = len(SPECIALS) + len(WORDS)
_COMMON = dict(vocab_size=VOCAB, pad_token_id=0, bos_token_id=2, eos_token_id=3)


def _configs(max_positions: int = 64) -> dict[str, tf.PretrainedConfig]:
    return {
        "bert": tf.BertConfig(
            hidden_size=32,
            num_attention_heads=4,
            num_hidden_layers=3,
            intermediate_size=64,
            max_position_embeddings=max_positions,
            **_COMMON,
        ),
        "distilbert": tf.DistilBertConfig(
            dim=32, n_heads=4, n_layers=3, hidden_dim=64, max_position_embeddings=max_positions, **_COMMON
        ),
        "gpt2": tf.GPT2Config(n_embd=32, n_head=4, n_layer=3, n_positions=max_positions, **_COMMON),
        "llama": tf.LlamaConfig(
            hidden_size=32,
            num_attention_heads=4,
            num_key_value_heads=2,
            num_hidden_layers=3,
            intermediate_size=64,
            max_position_embeddings=max_positions,
            **_COMMON,
        ),
    }


FAMILIES = tuple(_configs())


def _config(family: str, overrides: dict) -> tf.PretrainedConfig:
    config = _configs()[family]
    for key, value in overrides.items():
        setattr(config, key, value)
    return config


def tiny_model(family: str, dtype: torch.dtype = torch.float64, seed: int = 0, **overrides):
    """A tiny random model of one family, in eval mode, with the default (sdpa) attention."""
    config = _config(family, overrides)
    torch.manual_seed(seed)
    model = tf.AutoModel.from_config(config)
    _randomise_biases(model)
    return model.to(dtype).eval()


def tiny_lm(seed: int = 0, **overrides) -> tf.GPT2LMHeadModel:
    """A tiny random GPT-2 with its language-model head, float64, in eval mode."""
    config = _config("gpt2", overrides)
    torch.manual_seed(seed)
    return tf.GPT2LMHeadModel(config).double().eval()


def tiny_classifier(seed: int = 0) -> tf.BertForSequenceClassification:
    """A tiny random BERT with a 3-class head, float64, in eval mode."""
    torch.manual_seed(seed)
    config = tf.BertConfig(
        hidden_size=32, num_attention_heads=4, num_hidden_layers=3, intermediate_size=64, num_labels=3, **_COMMON
    )
    return tf.BertForSequenceClassification(config).double().eval()


def _randomise_biases(model: torch.nn.Module) -> None:
    """Fresh models start with zero biases, which would hide a forgotten value bias."""
    with torch.no_grad():
        for name, param in model.named_parameters():
            if name.endswith("bias"):
                param.normal_(0, 0.5)
