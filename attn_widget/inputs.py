"""Validate what the user passed (model, text, tokenizer) and tokenize it.

Every failure here is a clear message that says what is wrong and what to do,
raised before anything touches the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Encoded:
    """One tokenized text, batch of one, on the model's device."""

    model_inputs: dict[str, torch.Tensor]  # input_ids (1, n), attention_mask (1, n), ...
    token_ids: torch.Tensor  # (n,) long, on the CPU
    tokens: list[str]  # display text of every token
    special: torch.Tensor  # (n,) bool: [CLS], [SEP], <s>, ...


def check_model(model) -> None:
    """Require a PyTorch Hugging Face ``transformers`` model that returns self-attention weights."""
    from transformers import PreTrainedModel

    if isinstance(model, str):
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
    if getattr(model.config, "is_encoder_decoder", False):
        raise NotImplementedError(
            f"{type(model).__name__} is an encoder-decoder model; attn_widget supports encoder-only and "
            "decoder-only models so far."
        )


def check_text(text) -> str:
    """Require one non-empty string."""
    if isinstance(text, (list, tuple)):
        raise TypeError(
            f"text must be a single string; got a {type(text).__name__} of {len(text)} items. "
            "Analyse one text at a time, e.g. [AttentionWidget(model, t) for t in texts]."
        )
    if not isinstance(text, str):
        raise TypeError(f"text must be a string; got {type(text).__name__}.")
    if not text.strip():
        raise ValueError("text is empty; pass a sentence to analyse.")
    return text


def resolve_tokenizer(model, tokenizer):
    """Use the given tokenizer, or load the one saved next to the model (never from the network)."""
    if tokenizer is not None:
        if not callable(tokenizer):
            raise TypeError(f"tokenizer must be a transformers tokenizer; got {type(tokenizer).__name__}.")
        return tokenizer
    from transformers import AutoTokenizer

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
    """The longest input the model accepts, from its config (and the tokenizer if it is stricter)."""
    config = model.config
    limits = [
        getattr(config, name, None)
        for name in ("max_position_embeddings", "n_positions")
        if isinstance(getattr(config, name, None), int)
    ]
    tok_limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(tok_limit, int) and tok_limit < 1_000_000:
        limits.append(tok_limit)
    return min(limits) if limits else None


def encode(model, text: str, tokenizer) -> Encoded:
    """Tokenize ``text`` for ``model``; check its length and that tokenizer and model match."""
    batch = tokenizer(text, return_tensors="pt", return_special_tokens_mask=True)
    special = batch.pop("special_tokens_mask")[0].bool()
    ids = batch["input_ids"][0]
    n = int(ids.shape[0])
    if n == 0:
        raise ValueError("The tokenizer turned the text into zero tokens; pass a longer text.")
    limit = max_positions(model, tokenizer)
    if limit is not None and n > limit:
        raise ValueError(
            f"The text is {n} tokens long but the model accepts at most {limit}. "
            f"Shorten the text (for example to its first {limit} tokens)."
        )
    vocab = model.get_input_embeddings().num_embeddings
    if int(ids.max()) >= vocab:
        raise ValueError(
            f"The tokenizer produced token id {int(ids.max())} but the model's vocabulary has only {vocab} "
            "entries: tokenizer and model do not match. Pass the tokenizer that belongs to this model."
        )
    device = next(model.parameters()).device
    model_inputs = {key: value.to(device) for key, value in batch.items() if isinstance(value, torch.Tensor)}
    from .text import display_token
    tokens = [display_token(tokenizer.decode([int(i)])) for i in ids]
    return Encoded(model_inputs, ids.cpu(), tokens, special.cpu())
