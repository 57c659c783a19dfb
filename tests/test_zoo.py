"""Every family of the zoo (tests/zoo.py), checked as a user would meet it.

A model attn_widget accepts gets exact numbers: its attention equals an independent eager
pass, the masks are exactly its zero pattern, rollout and flow rows are distributions,
effective attention reproduces the output projection's output (float64 and float32), and
gradients equal independent autograd through the same scalar the model computes. A model
it refuses gets one sentence saying why. Either way the model is left as it was found.

On the locked transformers release each family must meet the outcome the zoo records; on
another release a family may move between a verified analysis and a refusal (zoo.met_as_user),
and whichever it meets is checked in full.
"""

from __future__ import annotations

import copy

import pytest
import torch
import transformers as tf
from test_model_state import assert_unchanged, snapshot
from zoo import (
    FAMILIES,
    LOCKED_RELEASE,
    ON_LOCKED_RELEASE,
    analysed,
    assert_one_clear_sentence,
    met_as_user,
    zoo_tokenizer,
)

from attn_widget import AttentionWidget, UnsupportedModelError, analyze, targets
from attn_widget.models import find_sites

TEXT = "the cat sat on the mat and the dog ran to the big red house"
TEXT_FAMILIES = [f for f in FAMILIES if f.expect != "seq2seq"]  # encoder-decoders: tests/test_seq2seq.py
ACCEPTED = [f for f in TEXT_FAMILIES if f.expect != "refused"]


@pytest.fixture(scope="module")
def tokenizer():
    return zoo_tokenizer()


def eager_copy(model):
    """An independent copy of the model that returns attention weights (the user's model is not touched)."""
    twin = copy.deepcopy(model)
    if twin.config._attn_implementation != "eager":
        twin.set_attn_implementation("eager")
    if twin.config._attn_implementation != "eager":  # a release that cannot switch it after loading: built eager
        config = copy.deepcopy(model.config)
        config._attn_implementation = "eager"
        twin = type(model)(config).to(next(model.parameters()).dtype)
        twin.load_state_dict(model.state_dict())
    return twin.eval()


def tail(outputs) -> torch.Tensor:
    """A scalar per batch item that depends on every token: the last five numbers of the first output."""
    return outputs[0].flatten(1)[:, -5:].sum(-1)


def text_of(tokens: int) -> str:
    """A text that the zoo tokenizer turns into exactly ``tokens`` tokens ([CLS] and [SEP] included)."""
    return " ".join(["cat"] * (tokens - 2))


def output_projection_outputs(model, analysis_of):
    """Run ``analysis_of()`` while recording what each output projection returned, in call order."""
    seen = []
    handles = [
        site.output.register_forward_hook(lambda _m, _i, out: seen.append(out[0].detach().double()))
        for site in find_sites(model)
    ]
    try:
        analysis = analysis_of()
    finally:
        for handle in handles:
            handle.remove()
    return analysis, seen[-analysis.n_layers :]  # the eager pass comes last


def rebuilt_output(record, attentions, layer) -> torch.Tensor:
    """Σ_h A_h V_g(h) W_O^h + b_O in float64, with the given attention in place of A."""
    values, weights, bias = record.require_values()
    heads = attentions[layer].double() @ values[layer][record.geometry.kv_group()].double()
    return torch.einsum("hnd,hde->ne", heads, weights[layer].double()) + bias[layer].double()


def awkward(model):
    """The model as users hand it over: training mode (one submodule not), some weights frozen, a hook."""
    model.train()
    list(model.modules())[2].eval()
    for i, param in enumerate(model.parameters()):
        param.requires_grad_(i % 3 != 0)
    model.register_forward_hook(lambda *args: None)
    return model


@pytest.mark.parametrize("family", TEXT_FAMILIES, ids=lambda f: f.id)
def test_every_family_gives_exact_numbers_or_one_clear_sentence(family, tokenizer):
    model = awkward(family.build())
    before = snapshot(model)
    analysis = met_as_user(family, analyze, model, TEXT, tokenizer)
    if analysis is not None:
        check_exact_numbers(family, model, analysis, tokenizer)
    assert_unchanged(before, snapshot(model))


def check_exact_numbers(family, model, analysis, tokenizer):
    record = analysis.capture
    n = record.n_tokens

    # The attention is what an independent eager pass returns, and its zeros are exactly the masks.
    with torch.no_grad():
        reference = eager_copy(model)(**tokenizer(TEXT, return_tensors="pt"), output_attentions=True).attentions
    assert torch.allclose(record.attentions, torch.stack([a[0] for a in reference]).float(), atol=1e-6)
    assert torch.equal((record.attentions == 0).all(dim=1), ~record.masks)

    rollout = analysis.rollout()
    flow_row = analysis.flow_rows(n - 1)
    assert torch.allclose(rollout.sum(-1), torch.ones(record.n_layers, n, dtype=torch.float64), atol=1e-10)
    assert torch.allclose(flow_row.sum(-1), torch.ones(record.n_layers, dtype=torch.float64), atol=1e-10)
    if record.causal:
        assert torch.all(rollout.triu(diagonal=1) == 0)

    if record.values is None:  # attention only: the value-based methods are refused with the reason
        assert family.expect == "attention" or not ON_LOCKED_RELEASE, record.values_unavailable
        with pytest.raises(UnsupportedModelError, match=family.reason if family.expect == "attention" else ""):
            analysis.effective()
    else:
        assert family.expect != "attention" or not ON_LOCKED_RELEASE, f"{family.name} now has value vectors"
        # float32: effective attention gives the layer's attention output to 1e-5.
        _, outputs = output_projection_outputs(model, lambda: analyze(model, TEXT, tokenizer))
        effective = analysis.effective()
        for layer in range(record.n_layers):
            rel = (rebuilt_output(record, effective, layer) - outputs[layer]).norm() / outputs[layer].norm()
            assert rel < 1e-5, f"layer {layer + 1}: {rel:.1e}"
        assert (effective - record.attentions).abs().max() > 1e-4  # it did remove something

    AttentionWidget(analysis=analysis)


def built_in(family, dtype, tokenizer):
    """The family's model in ``dtype``. Off the locked release, skipped where the model itself cannot run in it
    (transformers 5.0 builds MPT's causal mask with float64's minimum in a float32 tensor, and overflows)."""
    model = family.build(dtype)
    if not ON_LOCKED_RELEASE:
        batch = tokenizer(TEXT, return_tensors="pt")
        if model.config.is_encoder_decoder:  # the text as the decoder's inputs too
            batch["decoder_input_ids"] = batch["input_ids"]
        try:
            with torch.no_grad():
                model(**batch)
        except (RuntimeError, TypeError, ValueError) as error:
            pytest.skip(f"{type(model).__name__} itself fails in {dtype} on this transformers release: {error}")
    return model


@pytest.mark.parametrize("family", [f for f in ACCEPTED if f.expect == "full" and f.float64], ids=lambda f: f.id)
def test_effective_attention_in_float64(family, tokenizer):
    model = built_in(family, torch.float64, tokenizer)
    analysis, outputs = output_projection_outputs(model, lambda: analysed(family, model, TEXT, tokenizer))
    effective = analysis.effective()
    for layer in range(analysis.n_layers):
        rel = (rebuilt_output(analysis.capture, effective, layer) - outputs[layer]).norm() / outputs[layer].norm()
        assert rel < 1e-10, f"layer {layer + 1}: {rel:.1e}"


@pytest.mark.parametrize("family", ACCEPTED, ids=lambda f: f.id)
def test_gradients_match_independent_autograd(family, tokenizer):
    dtype, tolerance = (torch.float64, 1e-6) if family.float64 else (torch.float32, 1e-4)
    model = built_in(family, dtype, tokenizer)
    before = snapshot(model)
    analysis = analysed(family, model, TEXT, tokenizer)
    try:
        g = analysis.gradients(targets.function(tail))
    except UnsupportedModelError as error:  # read from its sdpa calls, but this release cannot switch it to eager
        assert not ON_LOCKED_RELEASE and "cannot switch to eager attention after loading" in str(error), str(error)
        assert_one_clear_sentence(str(error))
        pytest.skip(f"transformers {tf.__version__} cannot switch {family.name} to eager attention for gradients")

    inputs = tokenizer(TEXT, return_tensors="pt")
    with torch.no_grad():
        plain = float(tail(model(**inputs))[0])  # the model as the user runs it
    assert g.value == pytest.approx(plain, rel=tolerance, abs=1e-9)
    twin = eager_copy(model)  # autograd on the model's own token-id path, to its embedding module's output
    seen = []
    table = twin.get_input_embeddings().weight  # T5 calls another module holding the same table
    for module in twin.modules():
        if isinstance(module, torch.nn.Embedding) and module.weight is table:
            module.register_forward_hook(lambda _m, _i, out: seen.append(out) or out.clone())
    y = tail(twin(**inputs)).sum()
    (expected,) = torch.autograd.grad(y, seen)
    assert torch.allclose(g.embed_grad, expected[0].to(g.embed_grad.dtype), rtol=tolerance, atol=1e-9)
    assert_unchanged(before, snapshot(model))


@pytest.mark.parametrize("family", ACCEPTED, ids=lambda f: f.id)
def test_length_limit_and_one_past_it(family, tokenizer):
    model = family.build()
    longest = family.limit or 40
    assert analysed(family, model, text_of(longest), tokenizer).capture.n_tokens == longest
    if family.limit is not None:
        with pytest.raises(ValueError, match=f"{longest + 1} tokens long but the model accepts at most {longest}"):
            analyze(model, text_of(longest + 1), tokenizer)
    if family.hard_limit:  # the limit is tight: the model itself fails one token past it
        with pytest.raises((IndexError, RuntimeError, ValueError)), torch.no_grad():
            model(**tokenizer(text_of(longest + 1), return_tensors="pt"))


HALF = [f for f in ACCEPTED if f.id in ("bert", "gpt-2", "llama", "qwen2")]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("family", HALF, ids=lambda f: f.id)
def test_half_precision_models(family, dtype, tokenizer):
    model = family.build(dtype)
    before = snapshot(model)
    analysis, outputs = output_projection_outputs(model, lambda: analysed(family, model, TEXT, tokenizer))
    record = analysis.capture
    with torch.no_grad():
        reference = eager_copy(model)(**tokenizer(TEXT, return_tensors="pt"), output_attentions=True).attentions
    eager = torch.stack([a[0] for a in reference]).float()
    if record.weights_from == "sdpa calls":  # formed in float32 from the bf16/fp16 query and key the model used;
        # eager attention rounds the scores and the weights to the model's dtype (2**-8 relative for bf16)
        assert torch.allclose(record.attentions, eager, rtol=2e-2, atol=2e-3), (record.attentions - eager).abs().max()
    else:
        assert torch.equal(record.attentions, eager)
    assert record.attentions.dtype == torch.float32 and record.model_dtype == dtype
    effective = analysis.effective()
    for layer in range(record.n_layers):  # to the precision the model itself computed in
        rel = (rebuilt_output(record, effective, layer) - outputs[layer]).norm() / outputs[layer].norm()
        assert rel < 2e-2, f"layer {layer + 1}: {rel:.1e}"
    assert_unchanged(before, snapshot(model))
    # Hidden states kept as the model computed them, not in a float32 copy twice the size (after the check above:
    # transformers hooks a model asked for hidden states directly, for good)
    with torch.no_grad():
        hidden = model(**tokenizer(TEXT, return_tensors="pt"), output_hidden_states=True).hidden_states
    assert record.hidden_states.dtype == dtype and torch.equal(
        record.hidden_states, torch.stack([h[0] for h in hidden])
    )


def test_compiled_models_are_analysed_through_the_module_they_wrap(tokenizer):
    family = next(f for f in ACCEPTED if f.id == "gpt-2")
    model = family.build()
    compiled = torch.compile(model)
    assert torch.equal(analyze(compiled, TEXT, tokenizer).attentions, analyze(model, TEXT, tokenizer).attentions)


@pytest.mark.skipif(
    not ON_LOCKED_RELEASE, reason=f"the README's table is that of the locked transformers {LOCKED_RELEASE}"
)
def test_readme_table_is_what_the_zoo_checks():
    import importlib.util
    import pathlib

    script = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "supported_models.py"
    spec = importlib.util.spec_from_file_location("supported_models", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    readme = (script.parent.parent / "README.md").read_text()
    start, end = module.section(readme)
    assert readme[start:end].strip() == module.table(), "README.md's table is stale: run scripts/supported_models.py"
