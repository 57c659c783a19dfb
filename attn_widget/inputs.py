"""Validate what the user passed (model, text, tokenizer) and tokenize it.

Every failure here is a clear message that says what is wrong and what to do,
raised before anything touches the model.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import torch
from torch import nn

from .errors import UnsupportedModelError
from .models import refusal
from .text import display_token

# Config fields that bound the input length (learned position tables are read off the model too).
_LENGTH_FIELDS = ("max_position_embeddings", "n_positions", "max_seq_len", "n_ctx")
_POSITION_TABLE = re.compile(r"pos|wpe", re.IGNORECASE)
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Encoded:
    """One tokenized text, batch of one, on the model's device."""

    model_inputs: dict[str, torch.Tensor]  # input_ids (1, n), attention_mask (1, n), ...
    token_ids: torch.Tensor  # (n,) long, on the CPU
    tokens: list[str]  # display text of every token
    special: torch.Tensor  # (n,) bool: [CLS], [SEP], <s>, ...


def unwrap(model):
    """The transformers model inside a ``torch.compile`` wrapper (its hooks and eager path are the
    model's own), or the model itself."""
    from transformers import PreTrainedModel

    inner = getattr(model, "_orig_mod", None)
    return inner if isinstance(inner, PreTrainedModel) and isinstance(model, nn.Module) else model


def check_order(model, text, call: str) -> None:
    """Refuse a string where the model goes and a model where the text goes: the arguments of ``call`` swapped."""
    if isinstance(model, str) and isinstance(text, nn.Module):
        raise TypeError(
            f"The arguments look swapped: model is the string {_short(model)!r} and text is a "
            f"{type(text).__name__}. Pass the model first: {call}(model, text)."
        )


def _looks_like_text(value: str) -> bool:
    """A string with whitespace inside that names no file or folder: a sentence (a model id never has any)."""
    return any(c.isspace() for c in value.strip()) and not os.path.exists(value)


def _short(value: str, limit: int = 60) -> str:
    """The start of a long string, for a message."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def check_model(model, encoder_decoder: bool = False) -> None:
    """Require a loaded PyTorch Hugging Face ``transformers`` text model that attn_widget can read
    (an encoder-decoder one only with ``encoder_decoder=True``: ``seq2seq.py``)."""
    from transformers import PreTrainedModel

    if isinstance(model, str):
        if _looks_like_text(model):
            raise TypeError(
                f"model must be a loaded transformers model, not the string {_short(model)!r}, which looks like a "
                "sentence, not a model name. Pass a loaded model first and the text second, e.g. "
                'AttentionWidget(AutoModel.from_pretrained(name, attn_implementation="eager"), text).'
            )
        raise TypeError(
            f"model must be a loaded transformers model, not the string {model!r}. Load it first, e.g. "
            f'AutoModel.from_pretrained({model!r}, attn_implementation="eager").'
        )
    if not isinstance(model, PreTrainedModel):
        raise TypeError(
            f"model must be a PyTorch Hugging Face transformers model (a transformers.PreTrainedModel); "
            f"got {type(model).__module__}.{type(model).__name__}. TensorFlow, Flax and plain torch "
            "modules are not supported."
        )
    if getattr(model.config, "is_encoder_decoder", False) and not encoder_decoder:
        raise UnsupportedModelError(
            f"{type(model).__name__} is an encoder-decoder model: analyse it with "
            'attn_widget.analyze(model, source, tokenizer, target="...") (target=None: its own greedy output); '
            "the widget shows encoder-only and decoder-only models so far (for T5, T5EncoderModel works)."
        )
    reason = refusal(model)
    if reason:
        raise UnsupportedModelError(reason)
    parameter = next(model.parameters(), None)
    if parameter is None:
        raise UnsupportedModelError(f"{type(model).__name__} has no parameters; pass a model with weights.")
    # A device map's numbers are CUDA devices ({"": 0}); "disk" offloads weights that are loaded when used.
    mapped = {
        f"cuda:{d}" if isinstance(d, int) else str(d) for d in (getattr(model, "hf_device_map", None) or {}).values()
    }
    # Before the meta check: weights offloaded by a map are on the meta device until used.
    devices = sorted({str(p.device) for p in model.parameters() if p.device.type != "meta"} | mapped)
    if len(devices) > 1:
        raise UnsupportedModelError(
            f'{type(model).__name__} is split across devices ({", ".join(devices)}; device_map="auto" does this '
            "when it does not fit one): attn_widget reads a model on one device. Load it on one, e.g. "
            'from_pretrained(..., device_map={"": 0}) or model.to("cuda"), in half precision if it must fit.'
        )
    if parameter.device.type == "meta" or any(p.device.type == "meta" for p in model.parameters()):
        raise UnsupportedModelError(
            f"{type(model).__name__}'s weights are on the meta device: they were never loaded. Load the model with "
            "from_pretrained (without init_empty_weights or a meta device map) before analysing it."
        )


def check_text(text, name: str = "text") -> str:
    """Require one non-empty string of valid Unicode; ``name`` is what the messages call it ("target": the text an
    encoder-decoder's decoder is forced to produce)."""
    if isinstance(text, (list, tuple)):
        example = " at a time, e.g. [AttentionWidget(model, t) for t in texts]" if name == "text" else " at a time"
        raise TypeError(
            f"{name} must be a single string; got a {type(text).__name__} of {len(text)} items. "
            f"Analyse one {name}{example}."
        )
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string; got {type(text).__name__}.")
    if not text.strip():
        what = {
            "text": "a sentence to analyse",
            "target": "the text the decoder should produce, or target=None for the model's own output",
        }.get(name, f"a sentence as the {name}")
        raise ValueError(f"{name} is empty; pass {what}.")
    found = _SURROGATE.search(text)
    if found:
        raise ValueError(
            f"{name} contains a lone surrogate (U+{ord(found.group()):04X} at character {found.start()}), which is "
            "not valid Unicode and cannot be tokenized (it usually comes from decoding bytes with "
            "errors='surrogateescape'). Remove it, or decode the source with errors='replace'."
        )
    return text


def resolve_tokenizer(model, tokenizer):
    """Use the given tokenizer, or load the one saved next to the model (never from the network)."""
    from transformers import AutoTokenizer, PreTrainedTokenizerBase

    if tokenizer is not None:
        if isinstance(tokenizer, nn.Module):
            raise TypeError(
                f"tokenizer must be a transformers tokenizer; got the model {type(tokenizer).__name__}. The order is "
                "AttentionWidget(model, text, tokenizer)."
            )
        if not isinstance(tokenizer, PreTrainedTokenizerBase):
            raise TypeError(
                f"tokenizer must be a transformers tokenizer (AutoTokenizer.from_pretrained(...)); got "
                f"{type(tokenizer).__module__}.{type(tokenizer).__name__}. A tokenizers.Tokenizer can be wrapped "
                "with transformers.PreTrainedTokenizerFast(tokenizer_object=...)."
            )
        return tokenizer
    name = getattr(model, "name_or_path", "") or getattr(model.config, "_name_or_path", "")
    if not name:
        raise ValueError(
            "No tokenizer was given and the model has no name_or_path to load one from "
            "(was it built from a config?). Pass tokenizer=AutoTokenizer.from_pretrained(...)."
        )
    try:
        return AutoTokenizer.from_pretrained(name, local_files_only=True)
    except Exception as exc:  # any loading failure gets the same advice
        raise ValueError(
            f"Could not load a tokenizer from the model's path {name!r} ({type(exc).__name__}: {exc}). "
            "Pass tokenizer=AutoTokenizer.from_pretrained(...) explicitly."
        ) from exc


def max_positions(model, tokenizer) -> int | None:
    """The longest input the model accepts: its learned position tables (minus the offset of
    families that start counting after the pad index, RoBERTa's 2), length fields of its
    config, and the tokenizer's limit if it is stricter."""
    limits = []
    for name, module in model.named_modules():
        if isinstance(module, nn.Embedding) and _POSITION_TABLE.search(name.rsplit(".", 1)[-1]):
            offset = getattr(module, "offset", None)  # OPT and BioGPT keep theirs here
            if not isinstance(offset, int):
                offset = 0 if module.padding_idx is None else module.padding_idx + 1
            limits.append(module.num_embeddings - offset)
    for field in _LENGTH_FIELDS:
        value = getattr(model.config, field, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            limits.append(value)
    tok_limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(tok_limit, int) and tok_limit < 1_000_000:
        limits.append(tok_limit)
    return min(limits) if limits else None


def _embedding_rows(model) -> int | None:
    try:
        return model.get_input_embeddings().num_embeddings
    except (NotImplementedError, AttributeError):
        return None


def encode(model, text: str, tokenizer) -> Encoded:
    """Tokenize ``text`` for ``model``; check its length and that tokenizer and model match."""
    batch = tokenizer(text, return_tensors="pt", return_special_tokens_mask=True)
    special = batch.pop("special_tokens_mask")[0].bool()
    ids = batch["input_ids"][0]
    n = int(ids.shape[0])
    if n == 0:
        raise ValueError("The tokenizer turned the text into zero tokens; pass a longer text.")
    if special.all():
        raise ValueError(
            "The tokenizer turned the text into special tokens only "
            f"({tokenizer.convert_ids_to_tokens(ids.tolist())}); "
            "control and zero-width characters are dropped. Pass a text with words."
        )
    limit = max_positions(model, tokenizer)
    if limit is not None and n > limit:
        raise ValueError(
            f"The text is {n} tokens long but the model accepts at most {limit}. "
            f"Shorten the text (for example to its first {limit} tokens)."
        )
    rows = _embedding_rows(model)
    size = len(tokenizer)
    if rows is not None and (int(ids.max()) >= rows or size < rows // 2):
        raise ValueError(
            f"The tokenizer knows {size} tokens (ids up to {int(ids.max())} in this text) but the model's vocabulary "
            f"has {rows} entries: tokenizer and model do not match. Pass the tokenizer that belongs to this model."
        )
    device = next(model.parameters()).device
    model_inputs = {key: value.to(device) for key, value in batch.items() if isinstance(value, torch.Tensor)}
    tokens = [display_token(tokenizer.decode([int(i)])) for i in ids]
    return Encoded(model_inputs, ids.cpu(), tokens, special.cpu())
