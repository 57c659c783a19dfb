"""Integrated gradients reach the completeness they promise, or say they did not (docs/methods.md §6.2, §6.7).

The cases of issue 13: RMSNorm models (Gemma2/3, T5) with a tokenizer that adds no special tokens
and has no pad token (GPT-2, Llama-3 style), where the old zero baseline makes y(β) jump within
β < 1e-8 (nested norms at zero), and half-precision models, which must be integrated in float32.
"""

from __future__ import annotations

import copy
import warnings

import pytest
import torch
import transformers as tf
from test_model_state import assert_unchanged, snapshot
from tiny_models import _COMMON, SPECIALS, tiny_tokenizer

from attn_widget import analyze, targets

TEXT = "the cat sat on the mat and the dog ran to the big red house"
MASK = SPECIALS.index("[MASK]")
_DECODER = dict(
    hidden_size=32, num_attention_heads=4, num_key_value_heads=2, head_dim=8, num_hidden_layers=2, intermediate_size=64
)


def plain_tokenizer():
    """No special tokens added and no pad token: every position is integrated, nothing is kept."""
    tokenizer = tiny_tokenizer(with_specials=False)
    tokenizer.pad_token = None
    return tokenizer


def hidden_projection(outputs):
    """A fixed linear read-out of position 1, for models without an output head."""
    hidden = outputs.last_hidden_state
    return hidden[:, 1] @ torch.linspace(-1, 1, hidden.shape[-1], dtype=hidden.dtype, device=hidden.device)


def build(family: str, seed: int = 0):
    """(model, tokenizer, target) for one family: float32 unless the name says bf16/fp16."""
    torch.manual_seed(seed)
    target = None
    if family in ("gemma2", "gemma3", "llama"):
        config = {"gemma2": tf.Gemma2Config, "gemma3": tf.Gemma3TextConfig, "llama": tf.LlamaConfig}[family]
        model, tokenizer = tf.AutoModelForCausalLM.from_config(config(**_DECODER, **_COMMON)), plain_tokenizer()
    elif family == "gpt2":
        model, tokenizer = (
            tf.GPT2LMHeadModel(tf.GPT2Config(n_embd=32, n_head=4, n_layer=2, **_COMMON)),
            plain_tokenizer(),
        )
    elif family == "t5":
        config = tf.T5Config(
            vocab_size=_COMMON["vocab_size"], d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4, pad_token_id=0
        )
        model, tokenizer = tf.T5EncoderModel(config), plain_tokenizer()
        target = targets.function(hidden_projection, position=1)
    else:  # bert-bf16, bert-fp16: a classifier, with [CLS] ... [SEP] kept at the input
        config = tf.BertConfig(
            hidden_size=32, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64, num_labels=3, **_COMMON
        )
        model, tokenizer = tf.BertForSequenceClassification(config), tiny_tokenizer()
        model = model.to(torch.bfloat16 if family == "bert-bf16" else torch.float16)
    return model.eval(), tokenizer, target


def mask_baseline(embedding, analysis) -> tuple[torch.Tensor, torch.Tensor]:
    """e and e' ``(1, n, d)`` built here: e' is the [MASK] embedding at every non-special position."""
    ids = analysis.capture.token_ids[None]
    with torch.no_grad():
        embeds, mask = embedding(ids), embedding(torch.full_like(ids, MASK))
    return embeds, torch.where(analysis.capture.special[None, :, None], embeds, mask)


@pytest.mark.parametrize("family", ["gemma2", "gemma3", "t5", "bert-bf16", "bert-fp16", "llama", "gpt2"])
def test_completeness_within_the_default_step_cap(family):
    model, tokenizer, target = build(family)
    analysis = analyze(model, TEXT, tokenizer)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no "did not converge" warning
        ig = analysis.integrated_gradients(target, progress=False)
    assert ig.completeness_error < 0.05 and ig.steps <= 800 and ig.attributions.dtype == torch.float32
    # The identity itself, against y(e) − y(e') computed here on a float32 copy, e' = [MASK] embeddings.
    reference = copy.deepcopy(model).float()
    ends = torch.cat(mask_baseline(reference.get_input_embeddings(), analysis))
    with torch.no_grad():
        y = analysis.target(target).score(reference(inputs_embeds=ends))
    gap = float(y[0] - y[1])
    assert abs(float(ig.attributions.double().sum()) - gap) < 0.05 * abs(gap)
    assert torch.all(ig.attributions[analysis.capture.special] == 0)
    assert ig.converged and ig.baseline == "[MASK] embedding"


def test_the_step_cap_warns_with_the_completeness_reached():
    model, tokenizer, _ = build("gemma2")
    analysis = analyze(model, TEXT, tokenizer)
    with pytest.warns(RuntimeWarning, match=r"completeness error \d+\.\d% after 4 steps \(tolerance 5%\)") as caught:
        ig = analysis.integrated_gradients(progress=False, steps=2, max_steps=4)
    assert not ig.converged and ig.steps == 4 and ig.completeness_error >= 0.05
    message = str(caught[0].message)
    assert (
        f"{ig.completeness_error:.1%}" in message and "max_steps (now 4)" in message and "[MASK] embedding" in message
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert analysis.integrated_gradients(progress=False).converged  # the default cap is enough


def test_zero_baseline_is_still_available_and_hits_the_cap_on_gemma():
    model, tokenizer, _ = build("gemma2")
    analysis = analyze(model, TEXT, tokenizer)
    with pytest.warns(RuntimeWarning, match="after 100 steps"):
        ig = analysis.attribution("integrated_gradients", progress=False, baseline="zero", max_steps=100)
    assert ig.shape == (len(analysis.tokens),)
    assert analysis.integrated_gradients(progress=False, baseline="zero", max_steps=100).baseline == "zero vector"
    with pytest.raises(ValueError, match="no pad token"):
        analysis.integrated_gradients(progress=False, baseline="pad")
    with pytest.raises(ValueError, match='baseline must be "auto" or one of'):
        analysis.integrated_gradients(progress=False, baseline="mean")


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16])
def test_linear_target_gives_exact_ig(dtype):
    """y = Σ W ⊙ h0 with h0 = the word embeddings (Llama adds no position embedding): IG = W ⊙ (e − e').

    In bf16 the integration runs on a float32 copy, so the identity holds to float32 precision."""
    torch.manual_seed(0)
    model = tf.LlamaForCausalLM(tf.LlamaConfig(**_DECODER, **_COMMON)).to(dtype).eval()
    model.config.output_hidden_states = True
    analysis = analyze(model, TEXT, tiny_tokenizer())
    weights = torch.randn(len(analysis.tokens), 32, dtype=torch.float64)

    def linear(outputs):
        return (outputs.hidden_states[0] * weights.to(outputs.hidden_states[0].dtype)).sum((1, 2))

    ig = analysis.integrated_gradients(targets.function(linear), progress=False)
    exact = dtype == torch.float64
    assert ig.steps == 50 and ig.completeness_error < (1e-12 if exact else 1e-5)
    assert ig.attributions.dtype == (torch.float64 if exact else torch.float32)
    embeds, base = mask_baseline(model.get_input_embeddings(), analysis)
    expected = weights * (embeds.double() - base.double())[0]
    assert torch.allclose(ig.attributions.double(), expected, rtol=0, atol=1e-12 if exact else 1e-6)


def test_half_precision_model_is_left_unchanged_and_agrees_with_captum():
    """A bf16 model in train mode, with frozen weights, sdpa and a user hook, comes back bit for bit;
    the IG equals Captum's Gauss–Legendre IG on a float32 copy."""
    captum = pytest.importorskip("captum.attr")
    model, tokenizer, _ = build("bert-bf16")
    model.train()
    for i, param in enumerate(model.parameters()):
        param.requires_grad_(i % 3 != 0)
    model.register_forward_hook(lambda *args: None)
    params = list(model.parameters())
    before = snapshot(model)
    analysis = analyze(model, TEXT, tokenizer)
    ig = analysis.integrated_gradients(progress=False)
    after = snapshot(model)
    assert_unchanged(before, after)
    assert all(before["state"][k].dtype == v.dtype for k, v in after["state"].items())
    assert all(a is b for a, b in zip(params, model.parameters(), strict=True)) and params[0].dtype == torch.bfloat16

    reference = copy.deepcopy(model).float().eval()
    reference.set_attn_implementation("eager")
    target = analysis.target()
    embeds, base = mask_baseline(reference.get_input_embeddings(), analysis)
    expected = captum.IntegratedGradients(lambda e: target.score(reference(inputs_embeds=e))).attribute(
        embeds, baselines=base, n_steps=ig.steps, method="gausslegendre"
    )
    assert torch.allclose(ig.attributions, expected[0].to(ig.attributions.dtype), atol=1e-6)  # torch < 2.5: same dtypes


def test_auto_baseline_skips_reference_tokens_whose_embedding_is_near_zero():
    """[MASK], then [UNK], then pad, each only with norm ≥ 10% of the text's median token norm; else zeros."""
    torch.manual_seed(0)
    model = tf.LlamaForCausalLM(tf.LlamaConfig(**_DECODER, **_COMMON)).double().eval()
    tokenizer = tiny_tokenizer()
    weight = model.get_input_embeddings().weight
    analysis = analyze(model, TEXT, tokenizer)
    runner = analysis._runner()
    assert runner.baseline()[1] == "[MASK] embedding"
    with torch.no_grad():
        weight[tokenizer.mask_token_id] *= 0.05
        assert runner.baseline()[1] == "[UNK] embedding"
        weight[tokenizer.unk_token_id] = 0
        assert weight[tokenizer.pad_token_id].norm() == 0  # zeroed at init: pad is skipped too
        base, described = runner.baseline()
    assert described == "zero vector"
    special = analysis.capture.special
    assert torch.all(base[0, ~special] == 0) and torch.equal(base[0, special], runner._embed()[0, special])
