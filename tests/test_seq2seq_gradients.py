"""Gradients of encoder-decoders (attn_widget/seq2seq_gradients.py, docs/methods.md §6.8) on the zoo's tiny
T5, BART, mBART, Marian and Pegasus: token scores equal Captum's on a wrapper that feeds ``inputs_embeds`` and
``decoder_inputs_embeds`` to an eager copy, integrated gradients are complete, targets mean what they say,
and the model is left as found. Chefer et al.'s encoder-decoder rules equal a loop-by-loop re-implementation."""

from __future__ import annotations

import copy
import threading
import warnings

import pytest
import torch
from test_model_state import assert_unchanged, snapshot
from test_zoo import awkward, built_in
from zoo import FAMILIES, analysed, zoo_tokenizer

from attn_widget import analyze, targets
from attn_widget.methods.encoder_decoder_relevance import encoder_decoder_relevance, normalized_self_relevance
from attn_widget.seq2seq_gradients import gradient_part

pytestmark = pytest.mark.filterwarnings("ignore:Input Tensor:UserWarning")  # captum sets requires_grad itself
SEQ2SEQ = [f for f in FAMILIES if f.expect == "seq2seq"]
SOURCE = "the cat sat on the mat"
TARGET = "a dog ran to the house"
# Completeness |Σ IG − (y(x) − y(x'))| / |y(x) − y(x')| at the default 50 Gauss–Legendre points, float64.
# T5's ReLU feed-forward layers make y(β) piecewise smooth only, so its quadrature converges slowly: how slowly
# depends on where the kinks fall, so on the random weights (5e-3 with transformers 5.25's initialisation, 1.9e-2
# with 5.0's).
# 50 Gauss-Legendre points integrate a smooth path to 1e-9; T5's ReLU feed-forward and RMSNorm make its path
# kinked, and mT5's and UMT5's gated GELU and M2M100's ReLU less smooth (Captum's integral agrees to 1e-10 anyway;
# mT5 measured 1e-7 on the locked transformers, 5e-6 on the oldest release).
# NLLB-MoE (M2M100's ReLU; its two experts are both always used, top-2 of 2) measured 5.7e-6.
COMPLETENESS = {"T5": 5e-2, "mT5": 1e-5, "UMT5": 1e-5, "M2M100": 1e-5, "NLLB-MoE": 1e-5}
SMOOTH_COMPLETENESS = 1e-9
# Top-1 expert routing makes y(β) jump wherever a token's expert changes along the path (Switch Transformers: 7
# changes on the zoo's path, one a jump of 0.54 in the logit between two of 401 points whose median step is 0.003),
# so no quadrature completes IG: integrated at 50 steps without escalating, and attn_widget must say whether it
# converged (the completeness error it reports is checked above).
JUMPS = {"Switch Transformers"}


@pytest.fixture(scope="module")
def tokenizer():
    return zoo_tokenizer()


def reference_forward(model, tokenizer, position, token):
    """A plain eager copy fed embeddings directly: y = logit of ``token`` at decoder position ``position``."""
    twin = copy.deepcopy(model).eval()
    twin.set_attn_implementation("eager")
    mask = tokenizer(SOURCE, return_tensors="pt")["attention_mask"]

    def forward(source, target):
        out = twin(inputs_embeds=source, attention_mask=mask.expand(len(source), -1), decoder_inputs_embeds=target)
        return out.logits[:, position, token]

    return twin, forward


@pytest.mark.parametrize("family", SEQ2SEQ, ids=lambda f: f.id)
def test_token_scores_equal_captum_on_a_wrapper_and_ig_is_complete(family, tokenizer):
    captum = pytest.importorskip("captum.attr")
    model = awkward(built_in(family, torch.float64, tokenizer))
    before = snapshot(model)
    analysis = analysed(family, model, SOURCE, tokenizer, target=TARGET)
    ns, nt = len(analysis.source_tokens), len(analysis.target_tokens)
    t = 3
    word = int(analysis.target_ids[t + 1])
    saliency = analysis.attribution("saliency", t)
    gxi = analysis.attribution("grad_x_input", t)
    steps = {"max_steps": 50} if family.name in JUMPS else {}
    with warnings.catch_warnings():
        if family.name in JUMPS:
            warnings.filterwarnings("ignore", "Integrated gradients did not converge", RuntimeWarning)
        ig_scores = analysis.attribution("integrated_gradients", t, progress=False, **steps)
        ig = gradient_part(analysis).integrated_gradients(t, progress=False, **steps)
    assert_unchanged(before, snapshot(model))
    assert saliency.shape == gxi.shape == ig_scores.shape == (ns + nt,)

    twin, forward = reference_forward(model, tokenizer, t, word)
    source_ids = tokenizer(SOURCE, return_tensors="pt")["input_ids"]
    target_ids = analysis.target_ids[None]
    with torch.no_grad():
        source = twin.get_encoder().embed_tokens(source_ids)
        target = twin.get_decoder().embed_tokens(target_ids)
        by_ids = twin(input_ids=source_ids, decoder_input_ids=target_ids).logits[0, t, word]
    assert torch.allclose(forward(source, target)[0], by_ids, atol=1e-12)  # the wrapper is the model

    grads = captum.Saliency(forward).attribute((source, target), abs=False)
    assert torch.allclose(saliency, torch.cat([g[0] for g in grads]).norm(dim=-1), atol=1e-12)
    products = captum.InputXGradient(forward).attribute((source, target))
    assert torch.allclose(gxi, torch.cat([p[0] for p in products]).sum(-1), atol=1e-12)
    # Decoder inputs after position t cannot reach it (causal decoder): exactly 0.
    for scores in (saliency, gxi, ig_scores):
        assert (scores[ns + t + 1 :] == 0).all()

    # The baseline written out: the [MASK] embedding wherever the token is not special.
    specials = torch.tensor(tokenizer.all_special_ids)
    mask_id = tokenizer.mask_token_id
    with torch.no_grad():
        mask_source = twin.get_encoder().embed_tokens(torch.tensor([mask_id]))[0]
        mask_target = twin.get_decoder().embed_tokens(torch.tensor([mask_id]))[0]
    keep_s = torch.isin(source_ids, specials)[..., None]
    keep_t = torch.isin(target_ids, specials)[..., None]
    bases = (torch.where(keep_s, source, mask_source), torch.where(keep_t, target, mask_target))
    assert ig.baseline == "[MASK] embedding" and ig.steps == 50
    expected = captum.IntegratedGradients(forward).attribute(
        (source, target), baselines=bases, n_steps=ig.steps, method="gausslegendre"
    )
    assert torch.allclose(ig_scores, torch.cat([e[0] for e in expected]).sum(-1), atol=1e-10)
    assert (ig_scores[:ns][keep_s[0, :, 0]] == 0).all() and (ig_scores[ns:][keep_t[0, :, 0]] == 0).all()
    with torch.no_grad():
        gap = float(forward(source, target) - forward(*bases))
    error = abs(float(ig_scores.sum()) - gap) / abs(gap)
    assert error == pytest.approx(ig.completeness_error, rel=1e-6, abs=1e-12)
    if family.name in JUMPS:
        assert ig.converged == (error < 0.05)
    else:
        assert error < COMPLETENESS.get(family.name, SMOOTH_COMPLETENESS)


def test_targets_positions_tokens_and_contrasts(tokenizer):
    model = SEQ2SEQ[1].build(torch.float64)  # BART
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)
    nt = len(analysis.target_ids)
    ids = analysis.target_ids
    with torch.no_grad():
        logits = model(**tokenizer(SOURCE, return_tensors="pt"), decoder_input_ids=ids[None]).logits[0]
    part = gradient_part(analysis)

    # Default: the last position with a next token, explaining that token (the end token).
    default = part.target(None)
    assert default.position == nt - 2
    assert part.gradients(None).value == pytest.approx(float(logits[nt - 2, ids[-1]]), abs=1e-12)
    assert torch.equal(analysis.attribution("grad_x_input"), analysis.attribution("grad_x_input", nt - 2))
    assert torch.equal(
        analysis.attribution("saliency", 2), analysis.attribution("saliency", targets.next_token(2, "actual"))
    )
    assert part.gradients(-1).value == part.gradients(nt - 2).value  # negative positions count from the end
    top = int(logits[nt - 2].argmax())
    for spec in (targets.predicted(), targets.next_token()):  # the model's own top token at the default position
        assert part.gradients(spec).value == pytest.approx(float(logits[nt - 2, top]), abs=1e-12)

    # A token string: its logit at the default position; a token at a position; a contrast of two tokens.
    dog, cat = tokenizer.convert_tokens_to_ids(["dog", "cat"])
    assert part.gradients("dog").value == pytest.approx(float(logits[nt - 2, dog]), abs=1e-12)
    contrast = targets.token("dog", position=2, versus="cat")
    assert part.gradients(contrast).value == pytest.approx(float(logits[2, dog] - logits[2, cat]), abs=1e-12)
    # Gradients are linear in the target: the contrast's scores are the difference of the two tokens' scores.
    difference = analysis.attribution("grad_x_input", targets.token(dog, position=2)) - analysis.attribution(
        "grad_x_input", targets.token(cat, position=2)
    )
    assert torch.allclose(analysis.attribution("grad_x_input", contrast), difference, atol=1e-12)

    with pytest.raises(ValueError, match="no next token"):
        analysis.attribution("saliency", nt - 1)
    with pytest.raises(ValueError, match="classifiers and sentence encoders"):
        analysis.attribution("saliency", targets.class_logit(0))
    with pytest.raises(ValueError, match="method must be one of"):
        analysis.attribution("flow", 2)


# Chefer et al.'s encoder-decoder rules, written out loop by loop ---------------------------------------------


def plain_relevance(enc, enc_g, dec, dec_g, crs, crs_g):
    """Rules 5-10 of the paper with explicit sums over heads and indices (float64 lists of lists)."""

    def bar(att, grad):  # rule 5: the head mean of the positive part of ∇A ⊙ A
        heads, q, k = att.shape
        return [
            [sum(max(float(att[h, i, j] * grad[h, i, j]), 0.0) for h in range(heads)) / heads for j in range(k)]
            for i in range(q)
        ]

    def matmul(a, b):
        return [[sum(a[i][m] * b[m][j] for m in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]

    def add(a, b):
        return [[x + y for x, y in zip(ra, rb, strict=True)] for ra, rb in zip(a, b, strict=True)]

    def eye(n):
        return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]

    def normalised(r):  # eqs. 8-9: rows of R − I divided by their sums (a zero row stays zero), then + I
        n = len(r)
        out = []
        for i in range(n):
            row = [r[i][j] - (1.0 if i == j else 0.0) for j in range(n)]
            total = sum(row)
            out.append([(x / total if total > 0 else 0.0) + (1.0 if i == j else 0.0) for j, x in enumerate(row)])
        return out

    ns, nt = enc.shape[-1], dec.shape[-1]
    r_ss, r_tt, r_ts = eye(ns), eye(nt), [[0.0] * ns for _ in range(nt)]
    for layer in range(enc.shape[0]):
        r_ss = add(r_ss, matmul(bar(enc[layer], enc_g[layer]), r_ss))  # rule 6
    for layer in range(dec.shape[0]):
        a = bar(dec[layer], dec_g[layer])
        r_tt, r_ts = add(r_tt, matmul(a, r_tt)), add(r_ts, matmul(a, r_ts))  # rules 6, 7
        tt_bar = normalised(r_tt)
        transposed = [[tt_bar[j][i] for j in range(nt)] for i in range(nt)]
        update = matmul(transposed, matmul(bar(crs[layer], crs_g[layer]), normalised(r_ss)))
        r_ts = add(r_ts, update)  # rule 10
    return [torch.tensor(m, dtype=torch.float64) for m in (r_ss, r_tt, r_ts)]


def hand_built(seed=0, le=2, ld=3, heads=2, ns=3, nt=4):
    """Random attentions (decoder self-attention causal) and signed gradients, float64."""
    gen = torch.Generator().manual_seed(seed)
    enc = torch.rand(le, heads, ns, ns, generator=gen, dtype=torch.float64).softmax(-1)
    causal = torch.ones(nt, nt, dtype=torch.bool).tril()
    scores = torch.rand(ld, heads, nt, nt, generator=gen, dtype=torch.float64).masked_fill(~causal, float("-inf"))
    dec = scores.softmax(-1)
    crs = torch.rand(ld, heads, nt, ns, generator=gen, dtype=torch.float64).softmax(-1)
    grads = [torch.randn(a.shape, generator=gen, dtype=torch.float64) for a in (enc, dec, crs)]
    grads[1] = grads[1] * causal
    return enc, grads[0], dec, grads[1], crs, grads[2]


def test_encoder_decoder_relevance_is_the_papers_rules_written_out():
    for seed in range(3):
        enc, enc_g, dec, dec_g, crs, crs_g = hand_built(seed)
        ours = encoder_decoder_relevance((enc, enc_g), (dec, dec_g), (crs, crs_g))
        ss, tt, ts = plain_relevance(enc, enc_g, dec, dec_g, crs, crs_g)
        assert torch.allclose(ours.ss, ss, atol=1e-14)
        assert torch.allclose(ours.tt, tt, atol=1e-14)
        assert torch.allclose(ours.ts, ts, atol=1e-14)
        assert ours.tt.dtype == torch.float64 and ours.ts.shape == (4, 3)
        assert (ours.tt.triu(1) == 0).all()  # causal decoder: no relevance from later decoder inputs


def test_encoder_decoder_relevance_properties():
    enc, enc_g, dec, dec_g, crs, crs_g = hand_built(5)
    zero = encoder_decoder_relevance((enc, 0 * enc_g), (dec, 0 * dec_g), (crs, 0 * crs_g))
    assert torch.equal(zero.ss, torch.eye(3, dtype=torch.float64))  # the identity initialisation, untouched
    assert torch.equal(zero.tt, torch.eye(4, dtype=torch.float64))
    assert torch.equal(zero.ts, torch.zeros(4, 3, dtype=torch.float64))
    # Gradients on cross-attention only: R^ss = I and R^tt = I normalise to I, so R^ts = Σ_l Ā_cross.
    only_cross = encoder_decoder_relevance((enc, 0 * enc_g), (dec, 0 * dec_g), (crs, crs_g))
    assert torch.allclose(only_cross.ts, (crs * crs_g).clamp(min=0).mean(1).sum(0), atol=1e-15)
    # A row of R − I that received nothing stays 0; every other row of R̄ − I sums to 1.
    r = torch.eye(3, dtype=torch.float64) + torch.tensor([[0.5, 0.2, 0.0], [0, 0, 0], [0.1, 0.3, 0.4]]).double()
    normalised = normalized_self_relevance(r) - torch.eye(3, dtype=torch.float64)
    assert torch.allclose(normalised.sum(-1), torch.tensor([1.0, 0.0, 1.0], dtype=torch.float64), atol=1e-15)
    assert torch.allclose(normalised[0], torch.tensor([5 / 7, 2 / 7, 0.0], dtype=torch.float64), atol=1e-15)
    # Negative products never count (the positive part): flipping every gradient's sign gives another map.
    flipped = encoder_decoder_relevance((enc, -enc_g), (dec, -dec_g), (crs, -crs_g))
    assert not torch.allclose(flipped.ts, encoder_decoder_relevance((enc, enc_g), (dec, dec_g), (crs, crs_g)).ts)


def test_gradient_relevance_on_a_model_is_causal_and_leaves_it_unchanged(tokenizer):
    model = awkward(SEQ2SEQ[1].build(torch.float64))  # BART
    before = snapshot(model)
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)
    ns, nt, t = len(analysis.source_tokens), len(analysis.target_tokens), 3
    relevance = analysis.gradient_relevance(t)
    scores = analysis.attribution("gradient_rollout", t)
    assert_unchanged(before, snapshot(model))
    assert relevance.ss.shape == (ns, ns) and relevance.tt.shape == (nt, nt) and relevance.ts.shape == (nt, ns)
    # Decoder positions after t do not reach y: their rows never move from the start.
    assert torch.equal(relevance.tt[t + 1 :], torch.eye(nt, dtype=torch.float64)[t + 1 :])
    assert (relevance.ts[t + 1 :] == 0).all()
    assert (relevance.ts[t] > 0).any()
    assert torch.equal(scores[:ns], relevance.ts[t])
    assert scores[ns + t] == relevance.tt[t, t] - 1 and (scores[ns + t + 1 :] == 0).all()
    # The attentions it weighs are the analysis' own (the same forward pass, up to float64 rounding).
    g = gradient_part(analysis).gradients(t)
    assert torch.allclose(g.attentions["cross"], analysis.cross_attentions, atol=1e-12)
    assert torch.allclose(g.attentions["encoder"], analysis.encoder_attentions, atol=1e-12)


def test_scaled_embeddings_why_the_hook_and_not_inputs_embeds(tokenizer):
    """Marian with ``scale_embedding``: its encoder scales ``embed_tokens``' output only when it embeds ids itself.
    Gradients are taken at that output (before the scale) in both stacks; grad × input does not depend on the
    scale, so it equals a wrapper fed the scaled source embeddings the encoder really uses, and saliency on the
    source differs from that wrapper's by exactly the scale."""
    marian = next(f for f in SEQ2SEQ if f.name == "Marian")
    model = type(marian)("Marian", marian.config, dict(marian.options, scale_embedding=True), model=marian.model).build(
        torch.float64
    )
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)
    ns, t = len(analysis.source_tokens), 3
    word = int(analysis.target_ids[t + 1])
    scale = model.get_encoder().embed_scale
    assert scale > 1
    ids = tokenizer(SOURCE, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        source = model.get_encoder().embed_tokens(ids) * scale
        target = model.get_decoder().embed_tokens(analysis.target_ids[None])  # the decoder scales what it is given
    source.requires_grad_(True)
    target.requires_grad_(True)
    y = model(inputs_embeds=source, decoder_inputs_embeds=target).logits[0, t, word]
    with torch.no_grad():
        by_ids = model(input_ids=ids, decoder_input_ids=analysis.target_ids[None]).logits[0, t, word]
    assert float(y.detach()) == pytest.approx(float(by_ids), abs=1e-12)
    g_source, g_target = torch.autograd.grad(y, [source, target])
    products = torch.cat([(g_source * source).sum(-1)[0], (g_target * target).sum(-1)[0]]).detach()
    assert torch.allclose(analysis.attribution("grad_x_input", t), products, atol=1e-12)
    saliency = analysis.attribution("saliency", t)
    assert torch.allclose(saliency[:ns], scale * g_source[0].norm(dim=-1), atol=1e-12)
    assert torch.allclose(saliency[ns:], g_target[0].norm(dim=-1), atol=1e-12)


def test_half_precision_model_is_integrated_on_a_copy_and_left_unchanged(tokenizer):
    model = awkward(SEQ2SEQ[1].build().to(torch.bfloat16))  # BART
    before = snapshot(model)
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)
    ig = gradient_part(analysis).integrated_gradients(3, progress=False)
    assert ig.converged and ig.completeness_error < 1e-3 and ig.attributions.dtype == torch.float64
    assert_unchanged(before, snapshot(model))
    assert next(model.parameters()).dtype == torch.bfloat16


def test_a_model_without_lm_head_explains_a_function_of_its_outputs(tokenizer):
    t5 = next(f for f in FAMILIES if f.name == "T5 (no LM head, no target)")
    headless = type(t5)("T5Model", t5.config, dict(t5.options, decoder_start_token_id=0))  # T5Model: no LM head
    analysis = analyze(headless.build(torch.float64), SOURCE, tokenizer, target=TARGET)
    ns = len(analysis.source_tokens)
    with pytest.raises(ValueError, match="no language-model head"):
        analysis.attribution("saliency")
    spec = targets.function(lambda outputs: outputs.last_hidden_state[:, 2].sum(-1), position=2)
    scores = analysis.attribution("grad_x_input", spec)
    assert (scores[ns + 3 :] == 0).all() and (scores[: ns + 3] != 0).any()


def test_two_analyses_of_one_model_queue_for_it(tokenizer):
    """Issue 36: thread A's saliency is held inside its forward pass (whose hook replaces the token-embedding
    modules' output) while thread B's starts. B's embeddings run those modules too, so they must wait for the
    model's lock: before, B was handed A's embeddings and A counted B's call, blaming the model."""
    model = SEQ2SEQ[1].build(torch.float64)  # BART
    texts = {"A": SOURCE, "B": SOURCE + " " + SOURCE}  # two lengths: a mix-up cannot pass unseen
    alone = {
        name: analyze(model, text, tokenizer, target=TARGET).attribution("saliency", 2) for name, text in texts.items()
    }
    analyses = {name: analyze(model, text, tokenizer, target=TARGET) for name, text in texts.items()}  # nothing kept
    in_a, resume_a, found, failed = threading.Event(), threading.Event(), {}, {}

    def hold_a(*_args):
        if threading.current_thread().name == "A" and not in_a.is_set():
            in_a.set()
            resume_a.wait(60)

    def run(name):
        try:
            found[name] = analyses[name].attribution("saliency", 2)
        except Exception as exc:  # reported below: the test fails on it
            failed[name] = exc

    hold = model.get_decoder().layers[0].register_forward_pre_hook(hold_a)
    threads = {name: threading.Thread(target=run, args=(name,), name=name) for name in texts}
    try:
        threads["A"].start()
        assert in_a.wait(60)
        threads["B"].start()
        threads["B"].join(0.5)  # B runs until it waits for the model
    finally:
        resume_a.set()
        for thread in threads.values():
            thread.join(60)
        hold.remove()
    assert not failed, failed
    for name in texts:
        torch.testing.assert_close(found[name], alone[name], atol=1e-12, rtol=0)
