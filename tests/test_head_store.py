"""Issue 30: a long input's per-head attention is kept within a budget and read again when asked
(attn_widget/head_store.py, sdpa_reader.FirstPass and Again), and a long input's widget sends the heads of the
shown layer only (attn_widget/shown_heads.py). The budget is made small here so that a tiny model on a short text
takes the long input's path; the reference is the same model's capture with every layer kept."""

from __future__ import annotations

import copy
import threading

import pytest
import torch
from tiny_models import tiny_lm, tiny_model

from attn_widget import AttentionWidget, analyze, head_store, payload, sdpa_reader
from attn_widget.errors import UnsupportedModelError
from attn_widget.parts import mixing
from attn_widget.shown_heads import ShownHeads

TEXT = "the cat sat on the mat and the dog ran to the cat"


def layer_bytes(model, tokenizer) -> int:
    n = len(tokenizer(TEXT)["input_ids"])
    return model.config.num_attention_heads * n * n * torch.finfo(next(model.parameters()).dtype).bits // 8


@pytest.fixture
def one_layer_kept(monkeypatch, tokenizer):
    """Make the budget one layer's heads of TEXT (of tiny_lm and the tiny GPT-2: 4 heads, float64)."""
    monkeypatch.setattr(head_store, "KEPT_HEADS_BYTES", layer_bytes(tiny_lm(), tokenizer))


def test_heads_beyond_the_budget_are_read_again_exactly(tokenizer, monkeypatch):
    model = tiny_model("llama")  # grouped-query attention, rotary positions
    whole = analyze(model, TEXT, tokenizer)
    monkeypatch.setattr(head_store, "KEPT_HEADS_BYTES", 2 * layer_bytes(model, tokenizer))
    lazy = analyze(model, TEXT, tokenizer)
    store, kept = lazy.capture.heads, whole.capture.heads
    assert kept.all_kept and not store.all_kept and store.kept_layers == [0, 1]
    assert lazy.capture.weights_from == "sdpa calls" and store.reads == 0
    # Every layer's head mean and max from the first pass (float64 sums of the heads), as the whole stack gives them
    assert torch.allclose(store.mean, kept.mean, atol=1e-15, rtol=0)
    assert torch.equal(store.maximum, kept.maximum)
    assert torch.equal(store[2], kept[2]) and store.reads == 1  # read again: the same numbers
    assert store.kept_layers == [1, 2]  # the budget holds two layers, the least recently used goes
    assert torch.equal(store.full(), kept.full()) and store.reads == 2  # layer 0 read again, not kept
    assert torch.equal(store.head(-1), kept.head(-1)) and store.reads == 3
    # The value vectors were checked against what each sdpa call received, with no attention weights at hand
    assert torch.equal(lazy.capture.values, whole.capture.values)
    assert torch.allclose(lazy.rollout(), whole.rollout(), atol=1e-14, rtol=0)
    assert torch.allclose(lazy.raw(), whole.raw(), atol=1e-15, rtol=0)


def test_a_read_stops_after_the_layer_it_wants_and_leaves_the_model_as_found(tokenizer, one_layer_kept):
    model = tiny_lm()
    analysis = analyze(model, TEXT, tokenizer)
    store = analysis.capture.heads
    assert store.kept_layers == [0]
    blocks: list[int] = []
    handles = [
        block.register_forward_hook(lambda *_args, index=index: blocks.append(index))
        for index, block in enumerate(model.transformer.h)
    ]
    try:
        store[1]
    finally:
        for handle in handles:
            handle.remove()
    assert blocks == [0]  # block 1 is stopped inside its attention, once its weights are read; block 2 never runs
    assert model.config._attn_implementation == "sdpa" and not model.training
    assert not any(module._forward_hooks or module._forward_pre_hooks for module in model.modules())


def test_a_model_changed_since_its_capture_is_refused_when_read_again(tokenizer, one_layer_kept):
    model = tiny_lm()
    store = analyze(model, TEXT, tokenizer).capture.heads
    weight = model.transformer.h[2].attn.c_attn.weight
    with torch.no_grad():
        weight.mul_(1.5)
    with pytest.raises(UnsupportedModelError, match="changed since it was analysed"):
        store[2]


def test_a_long_inputs_widget_sends_what_the_view_draws(tokenizer, one_layer_kept, monkeypatch):
    """Made long by a small wire budget: every slice of every layer (3 x 6 slices of 15 rows, 5 edges a row: 7,020
    bytes) does not fit 5,200; and whether the mixing methods apply is checked on the first tokens, as on a long
    text. The data holds what the view draws (shown_heads.py): the shown head of every layer (the mean at first);
    a head chosen, that head of the layers whose heads are at hand (kept, or their rows' tops), the shown layer's
    read when it is not; the heads grid every slice of the shown layer; the whole-model view of a method drawn on
    the head mean (hidden-state attribution; rollout draws its own step) the head mean of every layer beside the
    shown head."""
    monkeypatch.setattr(payload, "DEFAULT_BUDGET_BYTES", 5_200)
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)
    model = tiny_lm()
    reference = analyze(model, TEXT, tokenizer)  # its heads read again where needed: the same numbers (above)
    heads, mean = reference.capture.heads, reference.raw()
    w = AttentionWidget(model, TEXT, tokenizer)
    store = w.analysis.capture.heads
    w.wait()  # the shown layer's heads are made ready in the background

    def sent() -> torch.Tensor:
        """Raw attention's data ``(3, 6, n, n)`` (heads, mean, max of each layer) as decoded, the checks that the
        slices not held are zero and the others what they must be."""
        decoded = payload.decode(w.data_raw)
        assert decoded["layout"] == "dense"  # what is sent fits: the exact numbers, quantised
        data = torch.from_numpy(decoded["matrices"])
        held = w.slices_ready["raw"]
        for index in range(18):
            layer, slot = divmod(index, 6)
            truth = heads[layer][slot] if slot < 4 else mean[layer] if slot == 4 else heads[layer].amax(0)
            assert torch.allclose(data[layer, slot], truth, atol=2e-5) if index in held else not data[layer, slot].any()
        return data

    assert w.slices_ready == {"raw": [4, 10, 16]} and w.ready["raw"] == [1, 2, 3] and store.reads == 0
    sent()
    w.head = 2  # as the front end sets it: head 2 of layer 1, whose heads the store keeps, at once
    assert w.slices_ready == {"raw": [2]} and store.reads == 0
    sent()
    w.layer = 3  # layer 3's heads are read (again) in the background, then sent; layer 1's rows' tops were kept
    w.wait()
    assert w.slices_ready == {"raw": [2, 14]} and w.heads_job == {} and store.reads == 1
    sent()
    w.view = "heads"  # the heads grid: every slice of layer 3
    assert w.slices_ready == {"raw": list(range(12, 18))} and store.reads == 1
    sent()
    w.view, w.method = "model", "rollout"  # rollout draws its step 0.5·Ā + 0.5·I (its own data): raw keeps head 2
    assert w.slices_ready == {"raw": [2, 14]} and store.reads == 1
    w.method = "hidden_attribution"  # drawn on the head mean of every layer, beside head 2
    assert w.slices_ready == {"raw": [2, 4, 10, 14, 16]} and store.reads == 1
    sent()
    w.view, w.method = "layer", "effective"  # another per-head method follows the same rule once computed
    w.wait()
    assert w.slices_ready == {"raw": [2, 14], "effective": [2, 14]}
    effective = payload.decode(w.data_effective)["matrices"]
    assert effective[2, 2].any() and not effective[1].any() and not effective[:, [0, 1, 3, 4, 5]].any()


def test_a_pass_asked_for_some_layers_reads_those_and_the_others_when_first_asked(tokenizer, monkeypatch):
    """analyze(..., layers=[2]) on a long input (READ_AT_ONCE_BYTES made 0 here): the one pass reads layer 2; the
    head mean of every layer (rollout's input) reads the others in one more pass, with the same numbers."""
    model = tiny_model("gpt2")
    whole = analyze(model, TEXT, tokenizer)
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)
    lazy = analyze(model, TEXT, tokenizer, layers=[2])
    store = lazy.capture.heads
    assert store.reduced_layers == [1] and store.kept_layers == [1] and store.reads == 0
    assert torch.equal(store.reductions()[0][1], whole.capture.heads.mean[1])  # its row; the others not set yet
    assert torch.allclose(lazy.rollout(), whole.rollout(), atol=1e-14, rtol=0) and store.reads == 1
    assert store.reduced_layers == [0, 1, 2] and store.kept_layers == [0, 1, 2]  # the budget had room
    assert torch.equal(store.full(), whole.attentions) and store.reads == 1
    with pytest.raises(ValueError, match="layer numbers 1..L"):
        analyze(model, TEXT, tokenizer, layers=[0])
    with pytest.raises(ValueError, match=r"layer numbers 1..3; got \[9\]"):
        analyze(model, TEXT, tokenizer, layers=[9])


def test_a_long_inputs_widget_reads_the_shown_layer_then_the_others_in_the_background(tokenizer, monkeypatch):
    model = tiny_lm()
    reference = AttentionWidget(model, TEXT, tokenizer, layer=2)  # every layer read in its pass
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)  # what applies is checked on the first tokens, as on a long text
    read_later = ShownHeads._want_heads
    monkeypatch.setattr(ShownHeads, "_want_heads", lambda self: None)  # the first picture alone
    w = AttentionWidget(model, TEXT, tokenizer, layer=2)
    store = w.analysis.capture.heads
    assert store.reduced_layers == [1] and w.ready["raw"] == [2] and store.reads == 0
    decoded = payload.decode(w.data_raw)["matrices"]
    assert decoded[1].any() and not decoded[[0, 2]].any()  # layer 2 alone
    read_later(w)  # as construction ends: the other layers, in the background
    w.wait()
    assert store.reduced_layers == [0, 1, 2] and w.ready["raw"] == [1, 2, 3] and store.reads == 1 and not w.heads_job
    assert w.data_raw == reference.data_raw  # the same bytes as reading every layer at once


def test_a_layer_read_in_the_background_is_formed_whole_only_when_it_is_kept(tokenizer, monkeypatch, one_layer_kept):
    """Reading the other layers after the first picture reduces each to its head mean and max; the heads of a layer
    the store does not keep are never formed whole on the CPU (one layer of Llama-3.2-1B at 4,096 tokens: 2.1 GB).
    Long by small budgets, as above: the heads are sent by layer."""
    monkeypatch.setattr(payload, "DEFAULT_BUDGET_BYTES", 3_000)
    model = tiny_lm()
    reference = AttentionWidget(model, TEXT, tokenizer, layer=2)  # every layer read in its pass
    reference.wait()
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)
    formed = []  # per call of each pass over the text (not the menu's check): whether its heads were formed whole
    begin = sdpa_reader.Reads.begin

    def recorded(self, call, n_heads, n, device):
        begin(self, call, n_heads, n, device)
        if n == len(tokenizer(TEXT)["input_ids"]):
            formed.append((call, self._heads is not None or call in self.kept or self.stack is not None))

    monkeypatch.setattr(sdpa_reader.Reads, "begin", recorded)
    w = AttentionWidget(model, TEXT, tokenizer, layer=2)
    w.wait()
    store = w.analysis.capture.heads
    # The first pass: layer 2 alone, kept (the budget is one layer); the second: layers 1 and 3, reduced only.
    assert formed == [(1, True), (0, False), (2, False)] and store.kept_layers == [1] and store.reads == 1
    assert w.data_raw == reference.data_raw
    # Sent as top-k rows, the kept layer's tops were made from its heads, and kept: showing it again ranks nothing
    kept_tops = store.tops(1)
    assert kept_tops is not None and store.tops(0) is not None and store.tops(2) is not None  # the others': read so
    for layer in (3, 2):
        for widget in (w, reference):
            widget.layer = layer
            widget.wait()
        assert w.data_raw == reference.data_raw and store.reads == 1 and store.tops(1) is kept_tops
    assert torch.equal(store[0], reference.analysis.capture.heads[0]) and store.reads == 2  # asked for: read again


def test_a_shown_layer_too_large_to_keep_is_sent_from_its_row_tops(tokenizer, monkeypatch):
    """A layer's heads alone pass KEPT_HEADS_BYTES, every layer's mean KEPT_MEANS_BYTES (Llama-3.2-1B at 4,096
    tokens: 2.1 and 1 GB): the first picture sends the shown layer's mean, kept as its rows' tops (here, of rows of
    15, they hold every entry: sent whole without reading again); the shown layer's heads are read again after it
    (as rows' tops, never whole), and the background pass that reads the other layers keeps their tops too, so
    that a head of every layer is then sent without reading anything, the bytes a widget keeping them sends. Made
    long here by small budgets: neither every layer's heads nor the means' whole rows fit the wire."""
    monkeypatch.setattr(payload, "DEFAULT_BUDGET_BYTES", 1_000)
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)
    model = tiny_lm()
    reference = AttentionWidget(model, TEXT, tokenizer, layer=2)  # keeps every layer's heads it reads
    reference.wait()
    monkeypatch.setattr(head_store, "KEPT_HEADS_BYTES", layer_bytes(model, tokenizer) - 1)
    monkeypatch.setattr(head_store, "KEPT_MEANS_BYTES", 0)  # every layer's mean kept as its rows' tops too
    read_later = ShownHeads._want_heads
    monkeypatch.setattr(ShownHeads, "_want_heads", lambda self: None)  # the first picture alone
    w = AttentionWidget(model, TEXT, tokenizer, layer=2)
    store = w.analysis.capture.heads
    assert store.kept_layers == [] and store.tops(1) is None and store.reads == 0
    assert payload.decode(w.data_raw)["layout"] == "dense" and w.slices_ready == {"raw": [10]}  # layer 2's mean
    monkeypatch.setattr(ShownHeads, "_want_heads", read_later)
    w._want_heads()
    w.wait()
    # Layer 2's heads (a pass that stops there), then the other layers' means and maxes (one pass).
    assert w.data_raw == reference.data_raw and w.slices_ready == {"raw": [4, 10, 16]} and store.reads == 2
    for widget in (w, reference):
        widget.head, widget.layer = 0, 3  # head 0 of every layer (as top-k rows), then another layer
        widget.wait()
    assert payload.decode(w.data_raw)["layout"] == "topk"
    assert w.data_raw == reference.data_raw and w.slices_ready == {"raw": [0, 6, 12]}
    assert store.reads == 2 and store.kept_layers == [] and store.tops(2) is not None
    assert torch.equal(store[2], reference.analysis.capture.heads[2]) and store.reads == 3  # exact heads: read again
    # The max is kept as its rows' tops (it is only drawn): asked for whole, every layer is read again, exactly.
    assert torch.equal(store.maximum, reference.analysis.capture.heads.maximum) and store.reads == 4
    # So is the mean (what rollout and flow are built on), formed as in the first pass and checked against its tops.
    assert torch.equal(store.mean, reference.analysis.capture.heads.mean) and store.reads == 5
    assert torch.equal(store.reduced_layer(1, "mean"), reference.analysis.raw()[1]) and store.reads == 6
    with torch.no_grad():
        model.transformer.h[0].attn.c_attn.weight.mul_(1.5)
    with pytest.raises(UnsupportedModelError, match="changed since it was analysed"):
        _ = store.mean


def test_reductions_kept_as_row_tops_are_sent_as_top_k_without_reading_again(tokenizer, monkeypatch):
    """The first picture of a long input sends each layer's mean and max read, kept as their rows' tops: as top-k
    rows with at most the kept TOPS entries a row, even where their whole rows would fit the wire (a dense envelope,
    or more edges a row, would read them again: 12 s for Llama-3.2-1B at 4,096 tokens). The wire budget here: every
    layer's heads do not fit (sent by layer), the shown layer's mean and max would, dense."""
    monkeypatch.setattr(payload, "DEFAULT_BUDGET_BYTES", 20_000)
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)
    monkeypatch.setattr(head_store, "KEPT_MEANS_BYTES", 0)
    monkeypatch.setattr(head_store, "KEPT_HEADS_BYTES", 0)
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)
    monkeypatch.setattr(ShownHeads, "_want_heads", lambda self: None)  # the first picture alone
    text = " ".join([TEXT] * 4)  # beyond ALL_EDGES_UP_TO: LONG_INPUT_TOP_K edges a row are drawn
    w = AttentionWidget(tiny_lm(), text, tokenizer)
    decoded = payload.decode(w.data_raw)
    assert w.analysis.capture.heads.reads == 0 and w.slices_ready == {"raw": [4]}  # layer 1's mean
    assert decoded["layout"] == "topk" and w.top_k <= decoded["k"] <= payload.TOPS


@pytest.mark.parametrize("dtype", [torch.float64, torch.bfloat16], ids=str)
def test_a_long_inputs_value_vectors_are_made_whole_when_first_read(tokenizer, monkeypatch, dtype):
    """More tokens than the sdpa reader checks (CHECKED_ROWS made 4 here): the value vectors are verified on the
    checked rows in the pass and made whole on first read, verified again then; the same numbers as made at once.
    A model changed in between is refused then."""
    model = tiny_model("llama", dtype=dtype)  # grouped-query attention; bf16: values recomputed in float32
    whole = analyze(model, TEXT, tokenizer).capture
    monkeypatch.setattr(sdpa_reader, "CHECKED_ROWS", 4)
    lazy = analyze(model, TEXT, tokenizer).capture
    assert whole.whole_values is None and lazy.whole_values is not None
    assert lazy.geometry == whole.geometry and lazy.value_layout == whole.value_layout
    assert lazy.values_dtype == whole.values_dtype and not lazy.values_unavailable
    assert torch.equal(lazy.values, whole.values) and lazy.whole_values is None
    assert torch.equal(lazy.out_weights, whole.out_weights) and torch.equal(lazy.out_bias, whole.out_bias)
    model = copy.deepcopy(model)  # the shared tiny model is left as it is
    changed = analyze(model, TEXT, tokenizer).capture
    with torch.no_grad():
        model.layers[0].self_attn.o_proj.weight.mul_(1.5)  # its slices are read when made whole
    with pytest.raises(UnsupportedModelError, match="could not be read again: its output projection's weights do not"):
        changed.require_values()


def test_the_page_changes_the_layer_while_the_layers_are_read_in_the_background(tokenizer, monkeypatch):
    """A page's update holds the widget's write lock while its values are set and checked; the layer change's
    observer then replaces the background read, waiting for it to stop, and that read's progress reports take the
    lock: the observer runs after the lock is released, so the page's changes never wait for ever."""
    monkeypatch.setattr(head_store, "READ_AT_ONCE_BYTES", 0)  # the other layers are read in the background
    monkeypatch.setattr(mixing, "PROBE_TOKENS", 4)
    w = AttentionWidget(tiny_lm(), TEXT, tokenizer)
    done = threading.Event()

    def page() -> None:
        for layer in (2, 3, 1, 3, 2):
            w.set_state({"layer": layer})
        done.set()

    threading.Thread(target=page, daemon=True).start()
    assert done.wait(60), "a page's layer change waited for ever"
    w.wait()
    assert w.layer == 2 and w.heads_job == {} and w.analysis.capture.heads.reduced_layers == [0, 1, 2]
