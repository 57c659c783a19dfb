"""Tokenize a batch of corpus rows, report the bad ones, run the good ones in one padded forward pass.

A bad row (not a string, empty, invalid Unicode, too long, special tokens only, ids outside the
model's vocabulary) gets one sentence in its ``error`` and no statistics; it never stops the batch.
Texts are padded on the right with an attention mask: real tokens keep positions ``0..n-1`` for
every position scheme (learned, rotary, RoBERTa's pad-offset ones), and a decoder's real queries
never see a pad key.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .. import verify
from ..capture import capture
from ..errors import UnsupportedModelError
from ..inputs import _embedding_rows, check_text, max_positions
from ..model_state import borrowed_for_capture
from .integrity import Rejected, text_hash
from .statistics import batch_statistics


@dataclass
class Prepared:
    """One row of the corpus after tokenizing: ``error`` set, or the model inputs of the text (lists of length n)."""

    index: int
    text: str | None
    identity: str  # corpus.integrity.text_hash of the item
    error: str | None = None
    inputs: dict[str, list[int]] | None = None  # input_ids, attention_mask, token_type_ids, ...
    special: list[bool] | None = None

    @property
    def n_tokens(self) -> int:
        return 0 if self.inputs is None else len(self.inputs["input_ids"])


class Limits:
    """What the model accepts, read once per worker: the longest input and the vocabulary size."""

    def __init__(self, model, tokenizer):
        self.positions = max_positions(model, tokenizer)
        self.vocabulary = _embedding_rows(model)


def _text_error(value) -> str | None:
    try:
        check_text(value)
    except (TypeError, ValueError) as exc:
        return str(exc)
    return None


def as_item(value: object) -> str:
    """A corpus item as it travels to a worker: the text, or (for anything that is no string) its error."""
    return value if isinstance(value, str) else Rejected(_text_error(value))


def prepare(rows: list[tuple[int, str]], tokenizer, limits: Limits) -> list[Prepared]:
    """Validate and tokenize ``rows`` (index, ``as_item(value)``) with one tokenizer call for the good ones."""
    prepared = []
    for index, value in rows:
        if isinstance(value, Rejected):
            prepared.append(Prepared(index, None, text_hash(value), str(value)))
        else:
            prepared.append(Prepared(index, value, text_hash(value), _text_error(value)))
    good = [row for row in prepared if row.error is None]
    if not good:
        return prepared
    encoded = tokenizer([row.text for row in good], return_special_tokens_mask=True, verbose=False)
    keys = [key for key in encoded if key != "special_tokens_mask"]
    for i, row in enumerate(good):
        ids = encoded["input_ids"][i]
        special = [bool(s) for s in encoded["special_tokens_mask"][i]]
        row.error = _token_error(ids, special, limits)
        if row.error is None:
            row.inputs = {key: list(encoded[key][i]) for key in keys}
            row.special = special
    return prepared


def _token_error(ids: list[int], special: list[bool], limits: Limits) -> str | None:
    if not ids:
        return "The tokenizer turned the text into zero tokens."
    if all(special):
        return "The tokenizer turned the text into special tokens only."
    if limits.positions is not None and len(ids) > limits.positions:
        return f"The text is {len(ids)} tokens long but the model accepts at most {limits.positions}."
    if limits.vocabulary is not None and max(ids) >= limits.vocabulary:
        return (
            f"Token id {max(ids)} is outside the model's vocabulary of {limits.vocabulary}: tokenizer and model do "
            "not match."
        )
    return None


def padded(rows: list[Prepared], pad_id: int, device) -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
    """``(model_inputs, real, special)``: the rows' inputs padded on the right to the longest, ``(B, N)`` each."""
    n = max(row.n_tokens for row in rows)
    inputs: dict[str, torch.Tensor] = {}
    for key in rows[0].inputs or {}:
        fill = pad_id if key == "input_ids" else 0
        inputs[key] = torch.tensor([row.inputs[key] + [fill] * (n - row.n_tokens) for row in rows])  # type: ignore[index]
    real = torch.tensor([[True] * row.n_tokens + [False] * (n - row.n_tokens) for row in rows])
    special = torch.tensor([row.special + [False] * (n - row.n_tokens) for row in rows])  # type: ignore[operator]
    inputs["attention_mask"] = real.long()
    return {key: value.to(device) for key, value in inputs.items()}, real, special


class BatchRunner:
    """Statistics of padded batches on one model. The first batch is checked against the single-text
    capture of its first text (which verifies masks, eager attention and A·V): the padded batch must
    reproduce that text's attention weights."""

    def __init__(self, model, tokenizer, names: tuple[str, ...]):
        self.model, self.tokenizer, self.names = model, tokenizer, names
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.verified = False
        self.shape: tuple[int, int] | None = None  # (layers, heads), known after the first batch

    def statistics(self, rows: list[Prepared]) -> dict[str, torch.Tensor]:
        """name → ``(B, L, H)`` float64 for the good ``rows`` (all of them must have inputs)."""
        device = next(self.model.parameters()).device
        inputs, real, special = padded(rows, self.pad_id, device)
        # The base model (without a language-model or classification head): the statistics need only the
        # attention weights, and a head over the vocabulary can cost a fifth of a small model's pass.
        base = getattr(self.model, "base_model", self.model)
        with borrowed_for_capture(self.model, "corpus statistics"), torch.no_grad():
            outputs = base(**inputs, output_attentions=True)
        attentions = getattr(outputs, "attentions", None)
        if not attentions or attentions[0] is None:
            raise UnsupportedModelError(
                f"{type(self.model).__name__} returned no attention weights in a batched forward pass with eager "
                "attention; analyse its texts one at a time with attn_widget.analyze."
            )
        self.shape = (len(attentions), int(attentions[0].shape[1]))
        if not self.verified:
            self._verify(rows[0], [a[0] for a in attentions])
        return batch_statistics(attentions, real, special, inputs["input_ids"], self.names)

    def _verify(self, row: Prepared, attentions: list[torch.Tensor]) -> None:
        reference = capture(self.model, str(row.text), self.tokenizer).attentions  # (L, H, n, n), verified
        n = row.n_tokens
        batched = torch.stack([a[:, :n, :n] for a in attentions]).to("cpu", reference.dtype)
        error = float((batched - reference).abs().max())
        dtype = next(self.model.parameters()).dtype
        # Not float64's 1e-10: rotary tables are computed in float32 whatever the model's dtype, and their
        # rounding depends on the batch shape (3e-8 on a float64 Llama).
        if error > max(verify.reproduction_tolerance(dtype), 1e-6):
            raise RuntimeError(
                f"{type(self.model).__name__}'s attention in a padded batch differs from the same text alone by "
                f"{error:.2g}, so per-text statistics would depend on the batch; analyse it with batch_size=1."
            )
        self.verified = True
