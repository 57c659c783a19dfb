"""Value zeroing (docs/methods.md §7.3) against brute force, its properties, and the zoo."""

from __future__ import annotations

import copy

import pytest
import torch
from test_model_state import assert_unchanged, awkward_model, snapshot
from tiny_models import tiny_model
from zoo import FAMILIES, zoo_tokenizer

from attn_widget.capture import capture
from attn_widget.parts.value_zeroing import (
    ValueZeroingUnavailable,
    value_zeroing_maps,
    value_zeroing_rollout,
)

TEXT = "the cat sat on the mat"
LAYERS = {"bert": {"num_hidden_layers": 2}, "gpt2": {"n_layer": 2}, "llama": {"num_hidden_layers": 2}}


def blocks_and_values(model):
    """``[(block, value projection, value column slice)]`` per layer, written out by hand per family
    (docs/methods.md §0.3), independent of the site finder, layouts and replay."""
    if hasattr(model, "encoder"):  # BERT
        return [(layer, layer.attention.self.value, slice(None)) for layer in model.encoder.layer]
    if hasattr(model, "h"):  # GPT-2: values are the last third of c_attn's output
        d = model.config.n_embd
        return [(block, block.attn.c_attn, slice(2 * d, 3 * d)) for block in model.h]
    return [(layer, layer.self_attn.v_proj, slice(None)) for layer in model.layers]  # Llama


def brute_force(model, tokenizer, text: str) -> torch.Tensor:
    """For every layer l and token j, one full forward pass of a copy of the model (its own attention
    implementation, as the capture read it) with token j's value row zeroed in layer l only;
    C_ij = 1 − cos(block l output, original), clipped, rn."""
    twin = copy.deepcopy(model)
    inputs = tokenizer(text, return_tensors="pt")
    layers = blocks_and_values(twin)
    outputs = {}
    keep = [b.register_forward_hook(lambda _m, _i, o, k=k: outputs.__setitem__(k, o[0] if isinstance(o, tuple) else o))
            for k, (b, _, _) in enumerate(layers)]  # fmt: skip
    with torch.no_grad():
        twin(**inputs)
        original = {k: v[0].clone() for k, v in outputs.items()}
        n = inputs["input_ids"].shape[1]
        scores = torch.zeros(len(layers), n, n, dtype=torch.float64)
        for layer, (_, value, columns) in enumerate(layers):
            for j in range(n):

                def zero(_m, _i, out, j=j, columns=columns):
                    out = out.clone()
                    out[:, j, columns] = 0
                    return out

                handle = value.register_forward_hook(zero)
                twin(**inputs)
                handle.remove()
                changed, kept = outputs[layer][0].double(), original[layer].double()
                cos = torch.nn.functional.cosine_similarity(changed, kept, dim=-1)
                scores[layer, :, j] = (1 - cos).clamp(min=0)
    for handle in keep:
        handle.remove()
    return scores / scores.sum(-1, keepdim=True)


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama"])
def test_value_zeroing_equals_brute_force(family, tokenizer):
    model = tiny_model(family, **LAYERS[family])
    record = capture(model, TEXT, tokenizer)
    maps = value_zeroing_maps(model, tokenizer, record)
    expected = brute_force(model, tokenizer, TEXT)
    assert maps.dtype == torch.float64 and maps.shape == expected.shape
    assert torch.allclose(maps, expected, rtol=1e-7, atol=1e-10)
    assert torch.allclose(maps.sum(-1), torch.ones(maps.shape[:2], dtype=torch.float64), atol=1e-12)
    assert (maps >= 0).all()
    if record.causal:
        assert (maps.triu(1) == 0).all()


def test_rollout_has_no_added_identity(tokenizer):
    model = tiny_model("bert")
    maps = value_zeroing_maps(model, tokenizer, capture(model, TEXT, tokenizer))
    rolled = value_zeroing_rollout(maps)
    assert torch.allclose(rolled[1], maps[1] @ maps[0], atol=1e-14)
    assert torch.allclose(rolled.sum(-1), torch.ones(rolled.shape[:2], dtype=torch.float64), atol=1e-12)


def test_a_token_whose_values_are_zero_gets_a_zero_column(tokenizer):
    """Llama has no position embeddings and no value bias: a token embedded as zeros has zero
    RMSNorm output, hence zero value vectors in layer 1; zeroing them changes nothing."""
    model = tiny_model("llama")
    cat = tokenizer.convert_tokens_to_ids("cat")
    with torch.no_grad():
        model.embed_tokens.weight[cat] = 0
    record = capture(model, TEXT, tokenizer)
    column = record.tokens.index("cat")
    assert (record.values[0][:, column] == 0).all()
    maps = value_zeroing_maps(model, tokenizer, record)
    assert maps[0][:, column].abs().max() <= 1e-20
    assert maps[0][:, column + 1 :].sum() > 0


def test_model_is_left_as_found(tokenizer):
    model = awkward_model("gpt2")
    before = snapshot(model)
    record = capture(model, TEXT, tokenizer)
    value_zeroing_maps(model, tokenizer, record)
    assert_unchanged(before, snapshot(model))


def test_progress_reports_and_cancels(tokenizer):
    model = tiny_model("bert")
    record = capture(model, TEXT, tokenizer)
    seen = []
    value_zeroing_maps(model, tokenizer, record, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (record.n_layers * record.n_tokens,) * 2

    def cancel(_done, _total):
        raise KeyboardInterrupt

    before = snapshot(model)
    with pytest.raises(KeyboardInterrupt):
        value_zeroing_maps(model, tokenizer, record, progress=cancel)
    assert_unchanged(before, snapshot(model))


def test_a_block_that_does_not_replay_is_refused_in_one_sentence(tokenizer):
    """A block whose output depends on the batch (here: a hook adding the batch mean) fails the replay check."""
    model = tiny_model("bert")
    record = capture(model, TEXT, tokenizer)
    block = model.encoder.layer[1]
    block.register_forward_hook(lambda _m, _i, out: out + out.mean(0, keepdim=True) * (out.shape[0] - 1))
    with pytest.raises(ValueZeroingUnavailable, match="layer 2 block, re-run on a batch") as error:
        value_zeroing_maps(model, tokenizer, record)
    assert "Traceback" not in str(error.value)


ZOO_TEXT = "the cat sat on the mat"
FULL = [f for f in FAMILIES if f.expect == "full"]
# Families whose value zeroing needs something particular: fused layouts, a shared layer, ALiBi,
# a bias beside the projection, sliding windows, attention sinks, T5's nested blocks.
# scripts/zoo_value_zeroing.py runs every "full" family (all compute); here those with particular needs.
SPECIAL = {"DeBERTa", "ALBERT", "T5 encoder", "CodeGen", "BLOOM", "Falcon (new architecture)"}


@pytest.mark.parametrize("family", [f for f in FULL if f.name in SPECIAL], ids=lambda f: f.id)
def test_zoo_value_zeroing(family):
    tokenizer = zoo_tokenizer()
    model = family.build()
    record = capture(model, ZOO_TEXT, tokenizer)
    maps = value_zeroing_maps(model, tokenizer, record)
    assert torch.allclose(maps.sum(-1), torch.ones(maps.shape[:2], dtype=torch.float64), atol=1e-9)
    assert (maps[~record.masks] == 0).all()


def test_attention_only_family_is_refused_in_one_sentence():
    family = next(f for f in FAMILIES if f.expect == "attention")
    tokenizer = zoo_tokenizer()
    model = family.build()
    with pytest.raises(ValueZeroingUnavailable, match="needs the value vectors") as error:
        value_zeroing_maps(model, tokenizer, capture(model, ZOO_TEXT, tokenizer))
    assert str(error.value).count(". ") <= 2
