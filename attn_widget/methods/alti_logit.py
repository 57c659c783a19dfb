"""ALTI-Logit (Ferrando, Gállego, Tsiamas & Costa-jussà, ACL 2023, "Explaining How Transformers
Use Context to Build Predictions"): signed contributions of every input token to one logit.

For a pre-LN (or parallel-block) language model, the final norm's input at the predicting
position t is the residual stream z_t = x⁰_t + Σ_l (attention_l(t) + b_O^l + mlp_l(t)), and the
target logit is d·(W_U LN_f(z_t) + b_U) for a direction d over the vocabulary (one-hot for a
token's logit, +1/−1 for a contrast of two). With LN_f frozen at z_t's own scale σ_t,
LN_f(u) = L_t(u) + β, the logit is linear in z_t:

    logit = u'·z_t + u·β + d·b_U,   u = W_Uᵀ d,   u' = C(γ ⊙ u) / σ_t   (C: centring, LayerNorm only).

Layer l's attention output at t splits over the tokens j of its input: Δ^l_j = Σ_h A^h_tj u'·f^h(x_j)
(the "affine" per-source part in the authors' released code, mt-upc/logit-explanations). Those
tokens are mixtures of the input tokens, tracked back with the ALTI rollout of the layers below
(R^{l-1} = C^{l-1}···C^1, R^0 = I):

    score = Σ_l Δ^l · R^{l-1}        (n,) signed, 0 for tokens after t.

Since every R is row-stochastic, Σ_j score_j = Σ_l Σ_j Δ^l_j, and exactly

    logit = Σ_j score_j + u'·x⁰_t + Σ_l u'·b_O^l + Σ_l u'·mlp_l(t) + u·β + d·b_U,

which ``LogitDecomposition.total`` adds up (tests check it against the model's logit).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .registry import register_attribution


def attention_logits(
    att: torch.Tensor, transformed: torch.Tensor, direction: torch.Tensor, position: int
) -> torch.Tensor:
    """Δ_j = Σ_h A^h_tj u'·f^h(x_j): ``(n,)`` float64, one layer's attention at ``position`` t
    projected on ``direction`` u' ``(d,)`` (the unembedding direction through the frozen final norm).

    att: ``(H, n, n)``; transformed: ``(H, n, d)``.
    """
    projected = transformed.to(torch.float64) @ direction.to(torch.float64)  # (H, n)
    return (att[:, position].to(torch.float64) * projected).sum(0)


def alti_logit(layer_logits: torch.Tensor, alti_rollout: torch.Tensor) -> torch.Tensor:
    """``(n,)`` float64 Σ_l Δ^l · R^{l-1}, with R^0 = I.

    layer_logits: ``(L, n)`` Δ^l per layer (``attention_logits``); alti_rollout: ``(L, n, n)`` the
    ALTI rollout after each layer (row-stochastic; only layers 1..L-1 are used).
    """
    layer_logits = layer_logits.to(torch.float64)
    score = layer_logits[0].clone()
    for layer in range(1, layer_logits.shape[0]):
        score += layer_logits[layer] @ alti_rollout[layer - 1].to(torch.float64)
    return score


@dataclass(frozen=True)
class LogitDecomposition:
    """The target logit split into input tokens (through attention) and what attention does not
    carry. All float64; ``total`` equals the model's logit up to rounding."""

    tokens: torch.Tensor  # (n,) ALTI-Logit per input token (0 after the position)
    layers: torch.Tensor  # (L, n) layer l's Δ^l tracked to the input tokens (sums over l to tokens)
    attention: torch.Tensor  # (L, n) Δ^l over layer l's own input positions
    initial: float  # u'·x⁰_t: the token's own embedding, straight down the residual stream
    out_bias: float  # Σ_l u'·b_O^l
    mlp: float  # Σ_l u'·mlp_l(t): everything the blocks add besides attention (feed-forward)
    final_bias: float  # u·β of the final norm + d·b_U of the unembedding
    logit: float  # the target's value computed by the model

    @property
    def total(self) -> float:
        """Σ tokens + initial + out_bias + mlp + final_bias: the decomposition's logit."""
        return float(self.tokens.sum()) + self.initial + self.out_bias + self.mlp + self.final_bias


def _lost_share(analysis, target) -> str | None:
    """Say so when ALTI gave a row no contribution (the output bias outweighed every token): the
    share of the logit through that row is then missing from the scores (docs/methods.md §7.8)."""
    empty = analysis.mixing_part.zero_rows("alti")[:, : target.position + 1]
    if not bool(empty.any()):
        return None
    layers = sorted({int(layer) + 1 for layer in empty.nonzero()[:, 0]})
    return (
        f"ALTI gave some tokens no contribution in layer(s) {', '.join(map(str, layers))} (the output bias "
        "outweighed every token), so these scores miss that share of the logit."
    )


register_attribution(
    "alti_logit",
    "ALTI-Logit (signed)",
    "Ferrando et al. (2023): each input token's signed contribution to the target logit, through every layer's "
    "attention, tracked back to the input tokens with the ALTI rollout. Decoders with a language-model head.",
    lambda analysis, target: analysis.alti_logit(target),
    signed=True,
    applies=lambda analysis: analysis.mixing_part.logit_unavailable(),
    warning=_lost_share,
    hint="Each input token's signed contribution to the target logit, through every layer.",
    trust="Ferrando et al. (2023): exact for the attention blocks' linear part, a proxy through the rest.",
)
