"""Every family of the zoo (tests/zoo.py) that attn_widget analyses fully: each context-mixing
method either gives maps with the promised properties (float64, non-negative, rows summing to 1
or reported as zero rows, causal models lower-triangular, rollouts row-stochastic or carrying the
reported zero rows) or says in one sentence why it is unavailable. The table below is the
expected outcome; a family whose behaviour changes fails until it is updated."""

from __future__ import annotations

import pytest
import torch
from zoo import FAMILIES, analysed, zoo_tokenizer

from attn_widget.parts.mixing import Mixing

TEXT = "the cat sat on the mat and the dog ran"
FULL = [f for f in FAMILIES if f.expect == "full"]
STRUCTURE = ("norm_residual", "globenc", "alti")
# family -> (methods unavailable, part of the reason)
UNAVAILABLE = {
    "MobileBERT": (STRUCTURE, "no norm or output of the block shows the residual stream"),
    "Gemma 2": (STRUCTURE, "sandwich norm"),
    "Gemma 3": (STRUCTURE, "sandwich norm"),
    "OLMo 2": (STRUCTURE, "sandwich norm"),
}
# families with an LM head whose logits ALTI-Logit explains
ALTI_LOGIT = {"GPT-2, causal LM", "Llama, causal LM"}


@pytest.fixture(scope="module")
def tokenizer():
    return zoo_tokenizer()


@pytest.mark.parametrize("family", FULL, ids=lambda f: f.id)
def test_every_family_gets_valid_maps_or_one_sentence(family, tokenizer):
    analysis = analysed(family, family.build(), TEXT, tokenizer)
    mixing = Mixing(analysis)
    n = analysis.capture.n_tokens
    missing, why = UNAVAILABLE.get(family.name, ((), ""))
    for name in mixing.names:
        reason = mixing.unavailable(name)
        if name in missing:
            assert why in reason and reason.count(". ") == 0 and reason.endswith("."), reason
            continue
        assert reason == "", reason
        maps, rollout = mixing.map(name), mixing.rollout(name)
        assert maps.dtype == torch.float64 and maps.shape == (analysis.n_layers, n, n)
        assert torch.isfinite(maps).all() and (maps >= 0).all()
        sums = maps.sum(-1)
        zero = mixing.zero_rows(name)
        assert torch.allclose(sums[~zero], torch.ones_like(sums[~zero]), atol=1e-9)
        assert name == "alti" or not zero.any()  # only ALTI's bias-dominated rows may be empty
        if analysis.causal:
            assert (maps.triu(1) == 0).all() and (rollout.triu(1) == 0).all()
        assert torch.isfinite(rollout).all() and (rollout >= 0).all() and (rollout.sum(-1) <= 1 + 1e-9).all()
        if not zero.any():
            assert torch.allclose(rollout.sum(-1), torch.ones(analysis.n_layers, n, dtype=torch.float64), atol=1e-9)
    logit_reason = mixing.logit_unavailable()
    assert (logit_reason == "") == (family.name in ALTI_LOGIT), logit_reason
