"""Encoder-decoder models (attn_widget/seq2seq.py, docs/methods.md §2.7) on the zoo's tiny
random T5, BART, mBART, Marian and Pegasus: the attentions are the model's own, the greedy
target is ``model.generate``'s, the rollout through cross-attention is a distribution that
respects the decoder's causality and equals a brute-force sum over paths, and the model is
left as it was found."""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import itertools

import pytest
import torch
import transformers as tf
from test_model_state import assert_unchanged, snapshot
from test_zoo import awkward, built_in
from zoo import FAMILIES, MAX_POSITIONS, analysed, assert_one_clear_sentence, zoo_tokenizer

from attn_widget import AttentionWidget, UnsupportedModelError, analyze
from attn_widget.seq2seq import MAX_NEW_TOKENS, Seq2SeqAnalysis, encoder_decoder_rollout

SEQ2SEQ = [f for f in FAMILIES if f.expect == "seq2seq"]
SOURCE = "the cat sat on the mat"
TARGET = "a dog ran to the house"


@pytest.fixture(scope="module")
def tokenizer():
    return zoo_tokenizer()


def test_the_zoo_covers_every_family_analysed():
    from attn_widget.models.families import SEQ2SEQ as ANALYSED

    assert sorted(getattr(tf, f.config).model_type for f in SEQ2SEQ) == sorted(ANALYSED)


def plain_pass(model, tokenizer, decoder_ids):
    """An independent eager forward pass of a copy of the model with the same decoder inputs."""
    twin = copy.deepcopy(model).eval()
    twin.set_attn_implementation("eager")
    batch = tokenizer(SOURCE, return_tensors="pt")
    with torch.no_grad():
        return twin(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            decoder_input_ids=decoder_ids[None],
            output_attentions=True,
        )


@pytest.mark.parametrize("family", SEQ2SEQ, ids=lambda f: f.id)
def test_greedy_target_and_attentions_are_the_models_own(family, tokenizer):
    model = awkward(family.build())
    before = snapshot(model)
    analysis = analysed(family, model, SOURCE, tokenizer)  # a release that refuses the family: its sentence, skipped
    assert_unchanged(before, snapshot(model))
    assert isinstance(analysis, Seq2SeqAnalysis) and analysis.generated

    twin = copy.deepcopy(model).eval()  # the user's own implementation (sdpa), in eval mode
    batch = tokenizer(SOURCE, return_tensors="pt")
    limit = MAX_POSITIONS - 1 if family.limit else MAX_NEW_TOKENS
    with torch.no_grad():
        greedy = twin.generate(**batch, do_sample=False, num_beams=1, max_new_tokens=min(MAX_NEW_TOKENS, limit))
    assert analysis.target_ids.tolist() == greedy[0].tolist()

    outputs = plain_pass(model, tokenizer, analysis.target_ids)
    ns, nt = len(analysis.source_tokens), len(analysis.target_tokens)
    ld = le = 2
    assert analysis.encoder_attentions.shape == (le, 4, ns, ns)
    assert analysis.decoder_attentions.shape == (ld, 4, nt, nt)
    assert analysis.cross_attentions.shape == (ld, 4, nt, ns)
    for mine, theirs in [
        (analysis.encoder_attentions, outputs.encoder_attentions),
        (analysis.decoder_attentions, outputs.decoder_attentions),
        (analysis.cross_attentions, outputs.cross_attentions),
    ]:
        assert torch.allclose(mine, torch.stack([a[0] for a in theirs]), atol=1e-6)
    assert_unchanged(before, snapshot(model))


@pytest.mark.parametrize("family", SEQ2SEQ, ids=lambda f: f.id)
def test_given_target_is_shifted_the_family_way(family, tokenizer):
    model = built_in(family, torch.float64, tokenizer)
    analysis = analysed(family, model, SOURCE, tokenizer, target=TARGET)
    labels = tokenizer(text_target=TARGET)["input_ids"]
    # The family's own shifting: its model's method, else its module's shift_tokens_right (Blenderbot, M2M100).
    shift = getattr(model, "prepare_decoder_input_ids_from_labels", None) or functools.partial(
        importlib.import_module(type(model).__module__).shift_tokens_right,
        pad_token_id=model.config.pad_token_id,
        decoder_start_token_id=model.config.decoder_start_token_id,
    )
    start = shift(torch.tensor([labels]))[0, 0].item()
    assert analysis.target_ids.tolist() == [start, *labels]
    assert analysis.target_tokens[1:] == ["[CLS]", "a", "dog", "ran", "to", "the", "house", "[SEP]"]
    assert not analysis.generated

    outputs = plain_pass(model, tokenizer, analysis.target_ids)
    assert torch.allclose(analysis.cross_attentions, torch.stack([a[0] for a in outputs.cross_attentions]), atol=1e-12)

    ns, nt = len(analysis.source_tokens), len(analysis.target_tokens)
    rollout = analysis.rollout()
    assert rollout.dtype == torch.float64 and rollout.shape == (2, nt, ns + nt)
    assert torch.allclose(rollout.sum(-1), torch.ones(2, nt, dtype=torch.float64), atol=1e-12)
    assert (rollout >= 0).all()
    target_part = rollout[..., ns:]
    assert (target_part.triu(diagonal=1) == 0).all()  # target token t gets nothing from target tokens after it
    # Each decoder layer moves 1 - α of what is left to the source: the split itself is fixed (§2.7).
    expected_share = torch.tensor([[0.5], [0.75]], dtype=torch.float64).expand(2, nt)
    assert torch.allclose(analysis.source_share(), expected_share, atol=1e-12)

    # The encoder is an ordinary Analysis of the same pass: every encoder method works.
    encoder = analysis.encoder
    assert encoder.tokens == analysis.source_tokens and not encoder.causal
    assert torch.allclose(encoder.rollout()[-1].sum(-1), torch.ones(ns, dtype=torch.float64))
    with pytest.warns(UserWarning, match="equals raw attention"):  # 8 tokens, head dimension 8
        assert encoder.effective().shape == (2, 4, ns, ns)
    assert encoder.flow(progress=False).shape == (2, ns, ns)
    for name in ("norm", "norm_residual", "globenc", "alti", "value_zeroing"):
        assert torch.allclose(encoder.mixing(name).sum(-1), torch.ones(2, ns, dtype=torch.float64), atol=1e-9)
    with pytest.raises(ValueError, match="output head"):  # the encoder has no head to predict with
        encoder.attribution("saliency")


def brute_force(enc, dec, cross, alpha):
    """Σ over every path, enumerated, of the product of its weights, for the last decoder layer.

    Going down from (decoder layer l, position t): the cross-attention sub-layer keeps the state
    (α) or jumps to encoder output k ((1-α)·C[t,k]) and then walks down the encoder through
    (1-α)·A + α·I to a source token; the self-attention sub-layer moves to u with (1-α)·A[t,u] + α·[t=u].
    """
    le, ns, _ = enc.shape
    ld, nt, _ = dec.shape
    result = torch.zeros(nt, ns + nt, dtype=torch.float64)
    eye_s, eye_t = torch.eye(ns, dtype=torch.float64), torch.eye(nt, dtype=torch.float64)

    # A path: for each decoder layer from the top, either ("stay", u), or ("jump", k, j_1..j_le), which ends it.
    def walk(t, layer, position, weight):
        if layer == 0:
            result[t, ns + position] += weight
            return
        c = cross[layer - 1]
        for k in range(ns):  # jump into the encoder's last layer at k, then down every encoder layer
            for js in itertools.product(range(ns), repeat=le):
                w, here = weight * (1 - alpha) * c[position, k], k
                for m, j in zip(range(le - 1, -1, -1), js, strict=True):
                    w = w * ((1 - alpha) * enc[m, here, j] + alpha * eye_s[here, j])
                    here = j
                result[t, here] += w
        for u in range(nt):  # stay, then the self-attention edge to u
            s = (1 - alpha) * dec[layer - 1, position, u] + alpha * eye_t[position, u]
            walk(t, layer - 1, u, weight * alpha * s)

    for t in range(nt):
        walk(t, ld, t, 1.0)
    return result


@pytest.mark.parametrize("alpha", [0.5, 0.3])
def test_rollout_equals_a_brute_force_sum_over_paths(alpha):
    torch.manual_seed(1)
    ns, nt, le, ld = 3, 3, 2, 2
    enc = torch.rand(le, ns, ns, dtype=torch.float64)
    enc /= enc.sum(-1, keepdim=True)
    dec = torch.rand(ld, nt, nt, dtype=torch.float64).tril()
    dec /= dec.sum(-1, keepdim=True)
    cross = torch.rand(ld, nt, ns, dtype=torch.float64)
    cross /= cross.sum(-1, keepdim=True)
    rollout = encoder_decoder_rollout(enc, dec, cross, alpha)
    assert torch.allclose(rollout[-1], brute_force(enc, dec, cross, alpha), atol=1e-14)
    assert torch.allclose(rollout[0], brute_force(enc, dec[:1], cross[:1], alpha), atol=1e-14)


def test_one_decoder_layer_in_closed_form():
    """D_1 = α·S_1 [0 | I] + (1-α)·[C_1 R_enc | 0]; uniform attention everywhere gives known numbers."""
    ns, nt = 4, 3
    enc = torch.full((1, ns, ns), 1 / ns, dtype=torch.float64)
    dec = torch.ones(1, nt, nt, dtype=torch.float64).tril()
    cross = torch.ones(1, nt, ns, dtype=torch.float64)
    rollout = encoder_decoder_rollout(enc, dec, cross)[0]
    assert torch.allclose(rollout[:, :ns], torch.full((nt, ns), 0.5 / ns, dtype=torch.float64))
    expected = 0.5 * (0.5 * dec[0] / dec[0].sum(-1, keepdim=True) + 0.5 * torch.eye(nt, dtype=torch.float64))
    assert torch.allclose(rollout[:, ns:], expected)


def test_base_model_needs_a_target(tokenizer):
    config = tf.T5Config(
        vocab_size=30, d_model=32, d_ff=64, num_layers=2, num_heads=4, d_kv=8, decoder_start_token_id=0
    )
    torch.manual_seed(0)
    model = tf.T5Model(config).eval()
    with pytest.raises(UnsupportedModelError, match='without a language-model head.*target="..."'):
        analyze(model, SOURCE, tokenizer)
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)  # T5's _shift_right: the pad id starts
    assert analysis.target_ids[0].item() == 0 and analysis.rollout().shape[0] == 2


def test_a_config_without_a_decoder_start_token_is_refused_clearly(tokenizer):
    config = tf.T5Config(vocab_size=30, d_model=32, d_ff=64, num_layers=2, num_heads=4, d_kv=8)
    assert getattr(config, "decoder_start_token_id", None) is None
    with pytest.raises(ValueError, match="no decoder_start_token_id.*Set model.config.decoder_start_token_id"):
        analyze(tf.T5Model(config).eval(), SOURCE, tokenizer, target=TARGET)


def test_mbart_needs_no_decoder_start_token(tokenizer):
    """mBART's own label shifting starts the decoder from the labels' last token (its language code) and never
    reads decoder_start_token_id, which MBartConfig leaves None: target= works, starting as the shift does."""
    from transformers.models.mbart.modeling_mbart import shift_tokens_right

    mbart = next(f for f in SEQ2SEQ if f.name == "mBART")
    options = {key: value for key, value in mbart.options.items() if key != "decoder_start_token_id"}
    model = dataclasses.replace(mbart, options=options).build()
    assert model.config.decoder_start_token_id is None
    analysis = analyze(model, SOURCE, tokenizer, target=TARGET)
    labels = tokenizer(text_target=TARGET, return_tensors="pt")["input_ids"]
    assert analysis.target_ids.tolist() == [
        shift_tokens_right(labels, model.config.pad_token_id)[0, 0].item(),
        *labels[0].tolist(),
    ]


def test_refusals_say_the_real_reason_and_no_advice_that_leads_to_another(tokenizer):
    """Whisper takes audio features (images are supported now: no "planned"); BigBird-Pegasus is a family not
    checked yet, so loading it with full attention, as the block-sparse refusal advised, led to a second refusal."""
    sizes = dict(d_model=16, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2)
    sizes |= dict(encoder_ffn_dim=32, decoder_ffn_dim=32, pad_token_id=0, bos_token_id=2, eos_token_id=3)
    whisper = tf.WhisperForConditionalGeneration(
        tf.WhisperConfig(vocab_size=60, num_mel_bins=8, max_source_positions=16, max_target_positions=16, **sizes)
    )
    with pytest.raises(UnsupportedModelError) as refused:
        analyze(whisper.eval(), SOURCE, tokenizer)
    assert "takes input_features" in str(refused.value) and "planned" not in str(refused.value)
    for attention in ("block_sparse", "original_full"):
        config = tf.BigBirdPegasusConfig(vocab_size=60, attention_type=attention, max_position_embeddings=64, **sizes)
        with pytest.raises(UnsupportedModelError, match="has not checked yet") as refused:
            analyze(tf.BigBirdPegasusForConditionalGeneration(config).eval(), SOURCE, tokenizer)
        assert "original_full" not in str(refused.value)


def test_target_is_refused_for_other_models(tokenizer):
    bert = next(f for f in FAMILIES if f.name == "BERT").build()
    with pytest.raises(TypeError, match="target= is for encoder-decoder models"):
        analyze(bert, SOURCE, tokenizer, target=TARGET)
    with pytest.raises(TypeError, match="target= is for encoder-decoder models"):
        AttentionWidget(bert, SOURCE, tokenizer, target=TARGET)


@pytest.mark.parametrize("attention", ["local", "transient-global"])
def test_block_local_encoder_decoders_say_why_before_running(attention, tokenizer):
    """LongT5's encoder returns its weights per block of tokens (local, or local plus each block's summary), not
    as one matrix over the source: refused for that reason, with the family that is analysed, before it runs."""
    config = tf.LongT5Config(
        vocab_size=30, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4, decoder_start_token_id=0
    )
    config.encoder_attention_type = attention
    model = tf.LongT5ForConditionalGeneration(config).eval()
    model.register_forward_pre_hook(lambda *_: pytest.fail("the model ran"))
    for meet in (analyze, functools.partial(AttentionWidget, target=TARGET)):
        with pytest.raises(UnsupportedModelError, match="block by block") as refused:
            meet(model, SOURCE, tokenizer)
        assert "T5 and mT5" in str(refused.value) and "has not checked yet" not in str(refused.value)


def test_returned_tensors_that_are_not_attention_weights_are_refused_with_the_reason():
    """transformers 5.0's Switch Transformers returns its position bias (with -inf on masked keys) as its
    attentions (make test-oldest meets it); rows that are distributions pass, in half precision too."""
    from attn_widget.seq2seq import _check_weights

    model = SEQ2SEQ[1].build()  # BART, for its name
    scores = torch.randn(2, 4, 5, 5, dtype=torch.float64)
    _check_weights(scores.softmax(-1), "decoder attentions", model, torch.float64)
    _check_weights(scores.softmax(-1).bfloat16().float(), "decoder attentions", model, torch.bfloat16)
    causal_bias = scores.masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf"))
    for returned in (scores, causal_bias, 2 * scores.softmax(-1)):
        with pytest.raises(UnsupportedModelError, match="are not attention weights") as refused:
            _check_weights(returned, "decoder attentions", model, torch.float32)
        assert "BartForConditionalGeneration" in str(refused.value) and "update transformers" in str(refused.value)
        assert_one_clear_sentence(str(refused.value))
