"""Value vectors of an encoder-decoder's decoder self-attention and cross-attention, and the effective
attention of both (docs/methods.md §2.7, §5).

The decoder's self-attention and cross-attention sites are hooked in the same forward pass as the
encoder's (``seq2seq.analyze_seq2seq``); the calls are told apart by site. Each kind is read and
verified, when first asked for (``DecoderValues``), exactly as the encoder's values are
(``capture._add_value_data``): per layer, A·V per head must reproduce what the output projection
received, and the projection's slices its output. For
cross-attention the rows are target queries and the values come from the encoder's output through the
cross-attention's own value projection, so V is ``(H_kv, ns, d_h)`` and A is ``(H, nt, ns)``.
"""

from __future__ import annotations

import torch

from .capture import Capture, _add_value_data, _Calls
from .errors import UnsupportedModelError
from .head_store import HeadStore
from .models import Site, find_sites
from .parts.effective import effective_of_record
from .quiet import remark

KINDS = ("encoder", "decoder", "cross")
_WHAT = {"decoder": "decoder self-attention", "cross": "cross-attention"}


def decoder_sites(model) -> dict[str, list[Site]]:
    """``{"decoder": self-attention sites, "cross": cross-attention sites}`` of the model's decoder."""
    decoder = model.get_decoder()
    return {"decoder": find_sites(decoder), "cross": find_sites(decoder, cross=True)}


def calls_of(calls: _Calls, sites: list[Site]) -> _Calls:
    """The hooked calls that belong to ``sites``, in call order (= layer order)."""
    return _Calls(
        values=[call for call in calls.values if any(call[0] is site for site in sites)],
        outputs=[call for call in calls.outputs if any(call[0] is site for site in sites)],
    )


def value_record(
    kind: str, attentions: torch.Tensor, template: Capture, model, calls: _Calls, dtype: torch.dtype
) -> Capture:
    """A ``Capture`` of one decoder attention kind: attentions ``(Ld, H, nt, nk)`` (nk = nt for "decoder",
    ns for "cross"), masks (causal, full) and the verified values ``(Ld, H_kv, nk, d_h)`` with W_O slices.
    template: the encoder's record (model name, type and dtype). Raises when A·V does not reproduce
    what a layer's output projection received (the weights are then not the ones the model used)."""
    n_layers, _, nq, nk = attentions.shape
    mask = torch.ones(nq, nk, dtype=torch.bool)
    record = Capture(
        tokens=[],
        token_ids=torch.zeros(0, dtype=torch.long),
        special=torch.zeros(0, dtype=torch.bool),
        heads=HeadStore.of(attentions),
        masks=(mask.tril() if kind == "decoder" else mask).expand(n_layers, nq, nk),
        causal=kind == "decoder",
        hidden_states=None,
        model_name=f"{template.model_name.removesuffix(' (encoder)')} ({_WHAT[kind]})",
        model_type=template.model_type,
        model_dtype=template.model_dtype,
    )
    try:
        _add_value_data(record, model, calls, dtype)
    except UnsupportedModelError as error:
        message = str(error)
        raise UnsupportedModelError(f"In the {_WHAT[kind]}, {message[:1].lower()}{message[1:]}") from None
    return record


class DecoderValues:
    """The decoder's hooked calls from the analysis pass, read and verified into value records on first use:
    an analysis that never asks for them pays nothing for them (about a fifth of a forward pass at
    128 + 32 tokens). The model's weights are read then, so a model changed in between fails the check."""

    def __init__(self, model, template: Capture, dtype: torch.dtype, pending: dict[str, tuple[torch.Tensor, _Calls]]):
        self._model, self._template, self._dtype = model, template, dtype
        self._pending = pending  # kind -> (attentions (Ld, H, nt, nk), that kind's calls)
        self._records: dict[str, Capture] = {}

    def record(self, kind: str) -> Capture:
        """The verified ``Capture`` of "decoder" or "cross" (``value_record``)."""
        if kind not in self._records:
            attentions, calls = self._pending[kind]
            self._records[kind] = value_record(kind, attentions, self._template, self._model, calls, self._dtype)
            del self._pending[kind]
        return self._records[kind]


def effective_of(record: Capture, sum_preserving: bool = False) -> torch.Tensor:
    """``(Ld, H, nq, nk)`` float64 effective attention of one decoder kind (``methods.effective_attention`` per layer:
    each row projected onto the column space of its admissible keys' values, §5). It differs from raw
    attention only in rows that see more keys than the head dimension: for cross-attention, when
    ns > d_h."""
    record.require_values()
    assert record.geometry is not None  # read with the values
    keys, head_dim = record.heads.shape[-1], record.geometry.head_dim
    if keys <= head_dim + int(sum_preserving):
        remark(
            f"{record.model_name}: {keys} keys do not exceed the head dimension ({head_dim}): effective attention "
            "equals raw attention here.",
            stacklevel=3,
        )
    return effective_of_record(record, sum_preserving, torch.float64)
