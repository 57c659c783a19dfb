"""Chefer, Gur & Wolf (ICCV 2021), "Generic Attention-model Explainability for Interpreting Bi-Modal and
Encoder-Decoder Transformers": the relevance maps of an encoder-decoder (docs/methods.md §6.8).

Pure tensors: attentions and their gradients in, three relevance maps out. The model runs in
``attn_widget.seq2seq_gradients``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Relevance:
    """The three maps after the last decoder layer, float64 (rows: the receiving token).

    ss ``(ns, ns)``: source on source (encoder self-attention); tt ``(nt, nt)``: decoder input on decoder
    input (decoder self-attention); ts ``(nt, ns)``: source on decoder position (cross-attention).
    """

    ss: torch.Tensor
    tt: torch.Tensor
    ts: torch.Tensor

    def scores(self, position: int) -> torch.Tensor:
        """``(ns + nt,)``: row ``position`` of ``ts``, then of ``tt − I`` (the identity start removed, as §6.4)."""
        tt = self.tt - torch.eye(self.tt.shape[0], dtype=self.tt.dtype)
        return torch.cat([self.ts[position], tt[position]])


def head_relevance(att: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    """Their rule 5, ``Ā = E_h[(∇A ⊙ A)⁺]``: ``(..., H, q, k) → (..., q, k)`` float64."""
    return (att.to(torch.float64) * grad.to(torch.float64)).clamp(min=0).mean(-3)


def normalized_self_relevance(relevance: torch.Tensor) -> torch.Tensor:
    """Their eqs. 8-9: ``R̄ = rn(R − I) + I``, each row of ``R − I`` divided by its sum.

    A row of ``R − I`` that sums to 0 (a token that received no relevance, e.g. a decoder position after
    the target's) stays 0 (our choice; their code would divide 0 by 0, and its NaN then clears the whole
    cross-attention update). ``(n, n) → (n, n)``.
    """
    eye = torch.eye(relevance.shape[-1], dtype=relevance.dtype)
    hat = relevance - eye
    sums = hat.sum(-1, keepdim=True)
    return torch.where(sums > 0, hat / torch.where(sums > 0, sums, 1.0), 0.0) + eye


def encoder_decoder_relevance(
    encoder: tuple[torch.Tensor, torch.Tensor],
    decoder: tuple[torch.Tensor, torch.Tensor],
    cross: tuple[torch.Tensor, torch.Tensor],
) -> Relevance:
    """Chefer et al.'s encoder-decoder rules. Each argument is (attentions, ∂y/∂attentions):
    encoder ``(Le, H, ns, ns)``, decoder ``(Ld, H, nt, nt)``, cross ``(Ld, H, nt, ns)``.

    ``R^ss = I``, ``R^tt = I``, ``R^ts = 0``. Encoder layer: ``R^ss += Ā R^ss`` (rule 6). Decoder layer, its
    self-attention: ``R^tt += Ā R^tt`` and ``R^ts += Ā R^ts`` (rules 6, 7, both from the values before the
    layer); then its cross-attention: ``R^ts += (R̄^tt)ᵀ Ā^ts R̄^ss`` (rule 10, R̄ from eqs. 8-9 with the
    current maps). Rule 11 (``R^tt += Ā^ts R^st``) adds nothing: the encoder never reads the target, R^st = 0.
    """
    enc = head_relevance(*encoder)
    dec = head_relevance(*decoder)
    crs = head_relevance(*cross)
    ns, nt = enc.shape[-1], dec.shape[-1]
    r_ss = torch.eye(ns, dtype=torch.float64)
    for a in enc:
        r_ss = r_ss + a @ r_ss
    r_tt = torch.eye(nt, dtype=torch.float64)
    r_ts = torch.zeros(nt, ns, dtype=torch.float64)
    s_bar = normalized_self_relevance(r_ss)
    for a_self, a_cross in zip(dec, crs, strict=True):
        r_tt, r_ts = r_tt + a_self @ r_tt, r_ts + a_self @ r_ts
        r_ts = r_ts + normalized_self_relevance(r_tt).T @ a_cross @ s_bar
    return Relevance(r_ss, r_tt, r_ts)
