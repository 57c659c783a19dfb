"""Attention weights read from the model's own sdpa calls in its one pass (attn_widget/sdpa_reader.py): against
a brute-force softmax for every kind of mask, against an independent eager copy of real families, one forward
pass where there were two, the reader's refusals, and the eager pass taken when it gives up."""

from __future__ import annotations

import copy
import gc
import re
import weakref

import pytest
import torch
import torch.nn.functional as F  # noqa: N812
from tiny_models import tiny_lm, tiny_model, tiny_tokenizer

from attn_widget import analyze, sdpa_reader
from attn_widget.sdpa_reader import Reads, SdpaReader

TEXT = "the cat sat on the mat and the dog ran to the big red house"


@pytest.fixture(scope="module")
def tokenizer():
    return tiny_tokenizer()


def new_reader(layers: int = 1) -> SdpaReader:
    """A float64 reader keeping every layer's heads in one stack (``reader.sink.stack``)."""
    return SdpaReader(torch.float64, torch.float64, layers, Reads(layers, torch.float64, budget=1 << 30))


def read(*args, **kwargs) -> SdpaReader:
    """A float64 reader after one sdpa call made under it."""
    reader = new_reader()
    with reader:
        F.scaled_dot_product_attention(*args, **kwargs)
    return reader


def brute_force(q, k, scale, allowed, bias=0.0):
    """softmax over the allowed keys of (q·kᵀ)·scale + bias, from the definition: (H, n, n)."""
    scores = torch.einsum("hid,hjd->hij", q[0], k[0]) * scale + torch.nan_to_num(torch.as_tensor(bias), neginf=0.0)
    weights = torch.exp(scores - scores.amax(-1, keepdim=True)) * allowed
    return weights / weights.sum(-1, keepdim=True)


@pytest.mark.parametrize("mask", ["none", "causal", "bool", "float", "per-head bias"])
@pytest.mark.parametrize("groups", [1, 3], ids=["mha", "gqa"])
def test_weights_are_the_definition_for_every_kind_of_mask(mask, groups):
    torch.manual_seed(0)
    heads, n, width = 6, 9, 5
    q = torch.randn(1, heads, n, width, dtype=torch.float64)
    k, v = (torch.randn(1, heads // groups, n, width, dtype=torch.float64) for _ in range(2))
    window = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).abs() <= 3  # a band: no row left empty
    options: dict = {"enable_gqa": True} if groups > 1 else {}
    allowed = torch.ones(heads, n, n, dtype=torch.bool)
    if mask == "causal":
        options["is_causal"], allowed = True, allowed.tril()
    elif mask == "bool":
        options["attn_mask"], allowed = window[None, None], allowed & window
    elif mask == "float":
        options["attn_mask"] = torch.where(window, 0.0, float("-inf")).double()[None, None]
        allowed = allowed & window
    elif mask == "per-head bias":  # ALiBi-like: each head's own slope, the same keys hidden
        distance = (torch.arange(n)[:, None] - torch.arange(n)[None, :]).abs().double()
        slopes = torch.arange(1, heads + 1, dtype=torch.float64)[:, None, None] / heads
        options["attn_mask"] = torch.where(window, -slopes * distance, float("-inf"))[None]
        allowed = allowed & window
    try:
        reader = read(q, k, v, scale=0.7, **options)
    except TypeError as error:  # torch before 2.5 has no grouped-query sdpa (make test-oldest)
        assert "enable_gqa" in str(error)
        pytest.skip(f"torch {torch.__version__} has no enable_gqa")
    assert reader.refusal == "" and reader.calls == 1 and reader.sink.stack is not None
    expanded = k.repeat_interleave(groups, dim=1)
    bias = options["attn_mask"][0] if mask == "per-head bias" else 0.0
    assert torch.allclose(reader.sink.stack[0], brute_force(q, expanded, 0.7, allowed, bias), atol=1e-12, rtol=0)
    assert torch.equal(reader.allowed[0], allowed[0])  # the keys the mask lets each query see


def test_an_additive_bias_and_the_default_scale_are_read():
    torch.manual_seed(1)
    q, k, v = (torch.randn(1, 2, 5, 4, dtype=torch.float64) for _ in range(3))
    bias = torch.randn(1, 2, 5, 5, dtype=torch.float64)  # ALiBi-like: added to the scores
    reader = read(q, k, v, attn_mask=bias)
    scores = torch.einsum("hid,hjd->hij", q[0], k[0]) / 2 + bias[0]
    assert reader.refusal == "" and torch.allclose(reader.sink.stack[0], torch.softmax(scores, -1), atol=1e-12, rtol=0)
    assert reader.allowed[0].all()


def test_calls_with_the_same_mask_share_one_record_of_it():
    """Every call's mask is recorded for the capture's checks (16 MB a layer at 4,096 tokens): layers passed the
    same mask share one tensor, a different one (a sliding window) is kept apart, each with its own keys."""
    torch.manual_seed(5)
    q, k, v = (torch.randn(1, 2, 6, 4, dtype=torch.float64) for _ in range(3))
    window = torch.ones(6, 6, dtype=torch.bool).tril().triu(-2)
    reader = new_reader(layers=4)
    with reader:
        for mask in (None, window, None, window):
            F.scaled_dot_product_attention(
                q, k, v, is_causal=mask is None, attn_mask=None if mask is None else mask[None, None]
            )
    allowed = reader.allowed
    assert reader.refusal == "" and allowed[0] is allowed[2] and allowed[1] is allowed[3]
    assert torch.equal(allowed[0], torch.ones(6, 6, dtype=torch.bool).tril()) and torch.equal(allowed[1], window)


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda q, k, v: F.scaled_dot_product_attention(q.expand(2, -1, -1, -1), k, v), "a batch of 2"),
        (lambda q, k, v: F.scaled_dot_product_attention(q[:, :, :2], k, v), "2 queries over 5 keys"),
        (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5), "dropout 0.5"),
        (lambda q, k, v: F.scaled_dot_product_attention(q, k[:, :1], v[:, :1]), "2 query heads over 1 key heads"),
        (lambda q, k, v: F.scaled_dot_product_attention(q[0], k[0], v[0]), "not \\(batch, heads, tokens, width\\)"),
    ],
    ids=["batch", "cache", "dropout", "heads", "3-d"],
)
def test_calls_it_cannot_account_for_are_refused_with_a_reason(call, reason):
    torch.manual_seed(2)
    q, k, v = (torch.randn(1, 2, 5, 4, dtype=torch.float64) for _ in range(3))
    reader = new_reader()
    try:
        with reader:
            call(q, k, v)
    except RuntimeError:  # torch's own refusal of the call (heads it cannot broadcast): never read either
        assert reader.refusal == "" and reader.sink.stack is None
        return
    assert reader.sink.stack is None or not reader.sink.reduced  # nothing read
    assert reader.refusal.startswith("call 1: ") and re.search(reason, reader.refusal)


def test_more_calls_than_layers_and_masks_that_differ_between_heads_are_refused():
    torch.manual_seed(4)
    q, k, v = (torch.randn(1, 2, 5, 4, dtype=torch.float64) for _ in range(3))
    reader = new_reader()
    with reader:
        F.scaled_dot_product_attention(q, k, v)
        F.scaled_dot_product_attention(q, k, v)
    assert reader.calls == 2 and reader.refusal == "call 2: more calls than the 1 attention layers"
    per_head = torch.ones(1, 2, 5, 5, dtype=torch.bool)
    per_head[0, 1] = per_head[0, 1].tril()
    assert read(q, k, v, attn_mask=per_head).refusal == "call 1: a mask that differs between heads"


@pytest.mark.parametrize("n", [5, 600], ids=["every row", "sampled rows"])
def test_weights_that_do_not_reproduce_the_output_are_refused(n):
    """A call whose output is not A·V of the weights read (a kernel doing something the reader does not know); past
    sdpa_reader.CHECKED_ROWS queries the check reads evenly spaced rows, the last among them."""
    torch.manual_seed(3)
    q, k, v = (torch.randn(1, 2, n, 4, dtype=torch.float64) for _ in range(3))
    reader = new_reader()
    output = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert (sdpa_reader.checked_rows(n)[-1], len(sdpa_reader.checked_rows(n))) == (n - 1, min(n, 256))
    reader._read(output, q, k, v, is_causal=True)  # as it is: read
    wrong = output.clone()
    wrong[:, :, -1] *= 1.5  # the last query's output only
    with pytest.raises(sdpa_reader._CannotRead, match="reproduce its output only to a relative error"):
        reader._read(wrong, q, k, v, is_causal=True)


@pytest.mark.parametrize("family", ["gpt2", "llama", "bert"])
def test_a_model_on_sdpa_runs_once_and_its_weights_are_an_eager_copys(tokenizer, family):
    model = tiny_model(family, torch.float32)
    calls = []
    handle = model.register_forward_pre_hook(lambda *_: calls.append(1))
    try:
        analysis = analyze(model, TEXT, tokenizer)
    finally:
        handle.remove()
    record = analysis.capture
    assert record.weights_from == "sdpa calls" and len(calls) == 1
    assert model.config._attn_implementation == "sdpa"
    eager = copy.deepcopy(model)
    eager.set_attn_implementation("eager")
    with torch.no_grad():
        reference = eager(**tokenizer(TEXT, return_tensors="pt"), output_attentions=True).attentions
    assert torch.allclose(record.attentions, torch.stack([a[0] for a in reference]), atol=1e-6, rtol=0)
    assert record.values is not None  # the value layout was found from the sampled rows


def test_when_the_reader_gives_up_the_eager_pass_is_taken(tokenizer, monkeypatch):
    """A mock of a call the reader cannot read (every real family in tests/zoo.py is read): the capture falls back
    to the eager pass, checked against the pass it already ran, with the same weights."""
    model = tiny_model("llama")
    read_by_sdpa = analyze(model, TEXT, tokenizer).capture

    def cannot_read(self, output, *args, **kwargs):
        raise sdpa_reader._CannotRead("a call this test makes unreadable")

    monkeypatch.setattr(SdpaReader, "_read", cannot_read)
    calls = []
    handle = model.register_forward_pre_hook(lambda *_: calls.append(1))
    try:
        record = analyze(model, TEXT, tokenizer).capture
    finally:
        handle.remove()
    assert record.weights_from == "eager pass" and len(calls) == 2
    assert model.config._attn_implementation == "sdpa"
    # Llama's eager attention takes its softmax in float32 even in a float64 model: agreement to float32's rounding
    assert torch.allclose(record.attentions, read_by_sdpa.attentions, atol=1e-6, rtol=0)
    assert torch.allclose(record.values, read_by_sdpa.values, atol=1e-6, rtol=0)


def test_a_mask_the_model_passed_that_is_not_its_configurations_is_refused():
    from attn_widget import verify
    from attn_widget.errors import UnsupportedModelError

    n = 6
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    verify.check_allowed({0: causal, 1: causal}, torch.stack([causal, causal]), lambda layer: "causal")  # no complaint
    windowed = causal & ~torch.ones(n, n, dtype=torch.bool).tril(-3)
    with pytest.raises(UnsupportedModelError, match=r"Layer 2's mask differs .* at 6 places, for example query 3 "):
        verify.check_allowed({0: causal, 1: windowed}, torch.stack([causal, causal]), lambda layer: "causal")


@pytest.mark.parametrize("implementation", ["sdpa", "eager"])
def test_the_outputs_kept_hold_no_attention_hidden_states_or_cache(tokenizer, implementation):
    """The capture keeps the model's outputs (targets resolve from them) but not what it copied out of them: every
    layer's attention (an eager pass) and hidden states are let go, not left in the ModelOutput's dict (where
    setting the attribute to None leaves them: gigabytes at long inputs), and a causal LM's key and value cache."""
    model = tiny_lm()
    model.set_attn_implementation(implementation)
    returned = []

    def note(module, args, kwargs, outputs):
        returned.extend(weakref.ref(t) for t in (*(outputs.attentions or ()), *(outputs.hidden_states or ())))

    handle = model.register_forward_hook(note, with_kwargs=True)
    try:
        record = analyze(model, TEXT, tokenizer).capture
    finally:
        handle.remove()
    gc.collect()
    assert record.outputs is not None and list(record.outputs.keys()) == ["logits"]
    assert len(returned) >= 3 and all(ref() is None for ref in returned)
