"""Context mixing on tiny random models: the verified block structure, ALTI's reconstruction of
what the model computed, an independent re-derivation following the authors' released code,
ALTI-Logit's exact logit identity, and clear refusals."""

from __future__ import annotations

import pytest
import torch
from test_model_state import assert_unchanged, snapshot
from tiny_models import tiny_lm, tiny_model
from zoo import FAMILIES, zoo_tokenizer

from attn_widget import UnsupportedModelError, analyze, targets
from attn_widget.methods import alti, registry
from attn_widget.methods.normalize import row_normalize
from attn_widget.models.blocks import PARALLEL, POST_LN, PRE_LN
from attn_widget.parts.mixing import Mixing

TEXT = "the cat sat on the mat and the dog ran to the big red house"
NAMES = ("norm", "norm_residual", "globenc", "alti")


def family(name: str):
    return next(f for f in FAMILIES if f.name == name)


@pytest.fixture(scope="module")
def bert():
    """A float64 BERT whose layer norms have random gains (γ = 1 would hide a forgotten γ)."""
    model = tiny_model("bert")
    with torch.no_grad():
        for name, param in model.named_parameters():
            if "LayerNorm.weight" in name:
                param.uniform_(0.5, 1.5)
    tokenizer = zoo_tokenizer()
    return model, tokenizer, analyze(model, TEXT, tokenizer)


def test_post_ln_structure_and_alti_reconstruction_of_the_first_norm(bert):
    model, _, analysis = bert
    mixing = Mixing(analysis)
    recorded = []
    handles = [
        layer.attention.output.LayerNorm.register_forward_hook(lambda _m, _i, out: recorded.append(out[0]))
        for layer in model.encoder.layer
    ]
    try:
        structure = mixing.structure()
    finally:
        for handle in handles:
            handle.remove()
    assert [layer.kind for layer in structure.layers] == [POST_LN] * 3
    for index, layer in enumerate(structure.layers):
        linear = layer.linear1
        pieces = alti.pieces(analysis.attentions[index], mixing.transformed(index), layer.x, linear)
        bias = linear.apply(analysis.capture.out_bias[index].double().expand_as(layer.x))
        rebuilt = pieces.sum(1) + bias + linear.bias
        assert torch.allclose(rebuilt, recorded[index].double(), atol=1e-10, rtol=0)


def test_maps_match_an_independent_derivation_following_the_released_code(bert):
    """Re-derived from the HF modules, step by step as the authors' code does (norm-analysis-of-
    transformer ``BertNormOutput`` 2020 and 2021, GlobEnc's ``BertLayer``, transformer-contributions'
    ``get_contributions``), with the true LN std (theirs adds ε to the values for ALTI), brute force."""
    model, _, analysis = bert
    inputs = analysis.capture.model_inputs
    seen = {}
    hooks = []
    for index, layer in enumerate(model.encoder.layer):
        for key, module in (("ln1", layer.attention.output.LayerNorm), ("ln2", layer.output.LayerNorm)):
            hooks.append(
                module.register_forward_hook(lambda _m, i, o, k=(key, index): seen.__setitem__(k, (i[0][0], o[0])))
            )
        hooks.append(
            layer.attention.self.value.register_forward_hook(
                lambda _m, _i, o, k=("v", index): seen.__setitem__(k, o[0])
            )
        )
    try:
        with torch.no_grad():
            model.set_attn_implementation("eager")
            out = model(**inputs, output_attentions=True, output_hidden_states=True)
    finally:
        for hook in hooks:
            hook.remove()
        model.set_attn_implementation("sdpa")
    heads, d = 4, 32
    expected = {name: [] for name in NAMES}
    for index, layer in enumerate(model.encoder.layer):
        x, a = out.hidden_states[index][0], out.attentions[index][0]
        v = seen[("v", index)].view(-1, heads, d // heads).transpose(0, 1)  # (H, n, d_h)
        dense = layer.attention.output.dense.weight.view(d, heads, d // heads)
        f = torch.einsum("hsv,dhv->hsd", v, dense)
        summed = torch.einsum("hks,hsd->ksd", a, f)  # Σ_h α f(x): (n, n, d)
        residual = summed + torch.einsum("sk,sd->skd", torch.eye(len(x), dtype=x.dtype), x)

        def through(ln, pre, vectors):
            var = pre.var(-1, unbiased=False)[:, None, None]
            return (vectors - vectors.mean(-1, keepdim=True)) / (var + ln.eps).sqrt() * ln.weight

        pre1, post1 = seen[("ln1", index)]
        t1 = through(layer.attention.output.LayerNorm, pre1, residual)
        t2 = through(layer.output.LayerNorm, seen[("ln2", index)][0], t1)
        expected["norm"].append(summed.norm(dim=-1))
        expected["norm_residual"].append(t1.norm(dim=-1))
        expected["globenc"].append(t2.norm(dim=-1))
        c = post1.abs().sum(-1)[:, None] - (post1[:, None] - t1).abs().sum(-1)
        expected["alti"].append(c.clamp_min(0))
    mixing = Mixing(analysis)
    for name in NAMES:
        assert torch.allclose(mixing.map(name), row_normalize(torch.stack(expected[name])), atol=1e-10, rtol=0), name


def test_rollouts_are_the_explicit_products_and_the_analysis_delegates(bert):
    _, _, analysis = bert
    mixing = analysis.mixing_part
    eye = torch.eye(analysis.capture.n_tokens, dtype=torch.float64)
    for name in NAMES:
        maps = analysis.mixing(name)
        assert maps.dtype == torch.float64 and maps.shape == (3, len(analysis.tokens), len(analysis.tokens))
        steps = [0.5 * m + 0.5 * eye for m in maps] if name == "norm" else list(maps)
        product = [steps[0], steps[1] @ steps[0], steps[2] @ steps[1] @ steps[0]]
        assert torch.allclose(analysis.mixing_rollout(name), torch.stack(product), atol=1e-12)
        assert analysis.mixing(name) is mixing.map(name)  # cached once


def test_the_structure_pass_leaves_the_model_as_found():
    model = tiny_model("gpt2").train()
    model.register_forward_hook(lambda *args: None)
    analysis = analyze(model, TEXT, zoo_tokenizer())
    before = snapshot(model)
    for name in NAMES:
        analysis.mixing(name)
    assert_unchanged(before, snapshot(model))


@pytest.fixture(scope="module")
def gpt2_lm():
    model = tiny_lm()
    return model, analyze(model, TEXT, zoo_tokenizer())


def test_alti_logit_adds_up_to_the_logit_the_model_computed(gpt2_lm):
    model, analysis = gpt2_lm
    mixing = Mixing(analysis)
    with torch.no_grad():
        logits = model(**analysis.capture.model_inputs).logits[0].double()
    n = analysis.capture.n_tokens
    for target, value in (
        (targets.next_token(), float(logits[-1].max())),
        (targets.token(7, position=5), float(logits[5, 7])),
        (targets.token(7, position=3, versus=9), float(logits[3, 7] - logits[3, 9])),
    ):
        parts = mixing.logit_decomposition(analysis.target(target))
        assert parts.logit == pytest.approx(value, abs=1e-10)
        assert parts.total == pytest.approx(value, abs=1e-10)  # Σ tokens + x⁰ + b_O + MLP + final bias
        assert parts.tokens.shape == (n,) and parts.tokens.dtype == torch.float64
        t = analysis.target(target).position
        assert (parts.tokens[t + 1 :] == 0).all() and (parts.attention[:, t + 1 :] == 0).all()
        assert torch.allclose(parts.layers.sum(0), parts.tokens, atol=1e-12)
    assert torch.equal(
        mixing.alti_logit(targets.token(7, position=5)), mixing.logit_decomposition(targets.token(7, position=5)).tokens
    )


def test_alti_logit_says_when_an_empty_alti_row_loses_part_of_the_logit(gpt2_lm, monkeypatch):
    """An empty ALTI row (the output bias outweighing every token) is rare in trained models, so it is
    made here by replacing the part's report of them: the token-score warning must say so."""
    _, analysis = gpt2_lm
    entry = registry.attribution_method("alti_logit")
    target = analysis.target(targets.token(7, position=5))
    assert entry.warning(analysis, target) is None  # this tiny model's rows all hold something
    empty = torch.zeros(analysis.n_layers, analysis.capture.n_tokens, dtype=torch.bool)
    empty[1, 3] = True
    monkeypatch.setattr(analysis.mixing_part, "zero_rows", lambda name: empty)
    assert "no contribution in layer(s) 2" in entry.warning(analysis, target)
    assert entry.warning(analysis, analysis.target(targets.token(7, position=2))) is None  # row 3 is after t


def test_alti_logit_through_an_rms_final_norm():
    model = family("Llama, causal LM").build(torch.float64)
    analysis = analyze(model, TEXT, zoo_tokenizer())
    mixing = Mixing(analysis)
    assert mixing.structure().head.final_norm.kind == "RMSNorm"
    parts = mixing.logit_decomposition(targets.token(5, position=6))
    with torch.no_grad():
        logit = float(model(**analysis.capture.model_inputs).logits[0, 6, 5])
    assert parts.logit == pytest.approx(logit, rel=1e-7)  # eager (ours) against sdpa (the model's own)
    assert parts.total == pytest.approx(logit, rel=1e-6)  # Llama's RMSNorm computes in float32


def test_alti_logit_refuses_what_it_cannot_explain(gpt2_lm, bert):
    _, analysis = gpt2_lm
    with pytest.raises(UnsupportedModelError, match="is a logit .or a difference of logits. at one position"):
        Mixing(analysis).alti_logit(targets.token(7, position=5, log_prob=True))
    with pytest.raises(UnsupportedModelError, match="ALTI-Logit is unavailable for BertModel: .*post-LN"):
        Mixing(bert[2]).alti_logit(targets.function(lambda o: o[0][:, 0, 0]))


@pytest.mark.parametrize(
    "name, reason",
    [
        ("Gemma 2", "normalises the attention output before adding it to the residual stream"),
        ("OLMo 2", "normalises the attention output before adding it to the residual stream"),
        ("MobileBERT", "no norm or output of the block shows the residual stream"),
        ("ConvBERT", "convolution heads"),
    ],
)
def test_unrecognised_structures_are_refused_with_one_sentence(name, reason):
    analysis = analyze(family(name).build(), TEXT, zoo_tokenizer())
    mixing = Mixing(analysis)
    for method in ("norm_residual", "globenc", "alti"):
        message = mixing.unavailable(method)
        assert reason in message and message.endswith(".") and "Traceback" not in message
        with pytest.raises(UnsupportedModelError) as error:
            mixing.map(method)
        assert str(error.value) == message
    assert (mixing.unavailable("norm") == "") == (name != "ConvBERT")


@pytest.mark.parametrize(
    "name, kind", [("GPT-J", PARALLEL), ("Falcon", PARALLEL), ("OPT", PRE_LN), ("T5 encoder", PRE_LN)]
)
def test_pre_ln_and_parallel_blocks_are_recognised(name, kind):
    analysis = analyze(family(name).build(torch.float64), TEXT, zoo_tokenizer())
    structure = Mixing(analysis).structure()
    assert {layer.kind for layer in structure.layers} == {kind}
    # pre-LN and parallel: norm_residual and globenc coincide (no norm on the stream)
    assert torch.equal(analysis.mixing("norm_residual"), analysis.mixing("globenc"))


def test_unknown_names_list_the_known_ones(bert):
    with pytest.raises(ValueError, match="known: norm, norm_residual, globenc, alti"):
        Mixing(bert[2]).map("attention")
