"""The binary wire format (payload.py), and the fixtures that pin it for the JS decoder."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from payload_fixtures import FIXTURES, cases, display_tokens, synthetic_widget, widget_state

from attn_widget import payload


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def test_dense_round_trip_is_within_quantisation_error():
    x = torch.rand(3, 2, 9, 9, dtype=torch.float64)
    decoded = payload.decode(payload.encode(x))
    assert decoded["layout"] == "dense" and decoded["shape"] == [3, 2, 9, 9]
    row_max = x.abs().amax(-1, keepdim=True).numpy()
    assert np.all(np.abs(decoded["matrices"] - x.numpy()) <= row_max / 65535 / 2 * 1.0001 + 1e-12)


def test_signed_values_use_int16():
    x = torch.randn(2, 5, 5, dtype=torch.float64)
    decoded = payload.decode(payload.encode(x))
    row_max = x.abs().amax(-1, keepdim=True).numpy()
    assert np.all(np.abs(decoded["matrices"] - x.numpy()) <= row_max / 32767 / 2 * 1.0001 + 1e-12)


def test_topk_keeps_the_strongest_entries_and_reports_coverage():
    x = torch.rand(4, 20, 20, dtype=torch.float64) ** 4
    budget = 4 * 20 * (6 + 4 * 5)
    blob = payload.encode(x, budget)
    decoded = payload.decode(blob)
    assert decoded["layout"] == "topk" and decoded["k"] == 5
    assert len(blob) <= budget + 1024  # header and alignment on top of the sections
    kept = torch.topk(x, 5, dim=-1)
    expected = torch.zeros_like(x).scatter(-1, kept.indices, kept.values)
    assert np.abs(decoded["matrices"] - expected.numpy()).max() < 1e-4
    coverage = (kept.values.sum(-1) / x.sum(-1)).numpy()
    assert np.abs(decoded["coverage"] - coverage).max() < 1e-4


def test_budget_governs_layout():
    x = torch.rand(2, 30, 30)
    assert payload.decode(payload.encode(x, 10**6))["layout"] == "dense"
    assert payload.decode(payload.encode(x, 2 * 30 * 40))["k"] == 8


def test_rows_layout_sends_only_the_rows_that_are_not_zero():
    """A deferred method on a long input holds only a pinned token's row per layer: its rows go dense and
    whole, where dense would not fit the budget and top-k would cut the row to its k strongest."""
    x = torch.zeros(6, 512, 512, dtype=torch.float64)
    x[:, 256] = torch.rand(6, 512, dtype=torch.float64) ** 4
    x[3, 256, 7] = -0.5  # one layer signed: the whole envelope is
    blob = payload.encode(x)
    decoded = payload.decode(blob)
    assert decoded["layout"] == "rows" and decoded["shape"] == [6, 512, 512]
    assert len(blob) < 6 * (8 + 2 * 512) + 1024
    row_max = x.abs().amax(-1, keepdim=True).numpy()
    assert np.all(np.abs(decoded["matrices"] - x.numpy()) <= row_max / 32767 / 2 * 1.0001 + 1e-12)
    assert payload.decode(payload.encode(torch.zeros(2, 3, 3)))["matrices"].shape == (2, 3, 3)  # nothing kept
    few_zero = torch.rand(2, 30, 30)
    few_zero[0, :10] = 0  # a third of the rows zero: the rows layout would save too little
    assert payload.decode(payload.encode(few_zero))["layout"] == "dense"


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        payload.encode(torch.tensor([[float("nan")]]))
    with pytest.raises(ValueError, match="stack of matrices"):
        payload.encode(torch.ones(3))
    with pytest.raises(ValueError, match="bad magic"):
        payload.decode(b"nope0000")


def test_sections_are_aligned():
    blob = payload.encode(torch.rand(3, 7, 7), 3 * 7 * (6 + 4 * 3))
    header_len = int.from_bytes(blob[4:8], "little")
    header = json.loads(blob[8 : 8 + header_len])
    for spec in header["sections"].values():
        assert (8 + header_len + spec["offset"]) % 4 == 0


@pytest.mark.parametrize("name", list(cases()))
def test_committed_js_fixtures_are_current(name):
    matrices, budget, slices = cases()[name]
    committed = (FIXTURES / f"{name}.bin").read_bytes()
    assert committed == payload.encode(matrices, budget, slices), "run python tests/payload_fixtures.py"
    expected = json.loads((FIXTURES / "expected.json").read_text())[name]
    assert expected["values"] == matrices.flatten().tolist()


@pytest.mark.parametrize(
    ("held", "budget", "layout"),
    [([1, 2, 5, 7], 10**9, "dense"), ([1, 2, 5, 7], 300, "topk"), ([1, 5, 12, 13, 14, 15], 500, "rows")],
)
def test_some_slices_encode_as_those_slices_of_the_whole_the_others_zero(held, budget, layout):
    """A long input's per-head data holds the shown layer's heads and every layer's mean and max: the slices held
    decode as the whole's encoding of them (same k from the budget of what is held), the others as zero, and the
    slices never held are never read."""
    g = torch.Generator().manual_seed(5)
    stack = torch.rand(4, 4, 9, 9, generator=g, dtype=torch.float64)
    stack[3] = 0  # layer 3's slices all zero: the rows layout when the budget is small
    read: list[int] = []

    class Parts:  # a part read a layer at a time, noting which
        shape, dtype = stack.shape, stack.dtype

        def dim(self):
            return 4

        def __getitem__(self, layer):
            read.append(layer)
            return stack[layer]

    blob = payload.encode([Parts()], budget, held)
    decoded = payload.decode(blob)
    assert decoded["shape"] == [4, 4, 9, 9] and decoded["layout"] == layout
    assert sorted(set(read)) == sorted({s // 4 for s in held})  # none of layer 2's slices is held: never read
    slices = torch.from_numpy(decoded["matrices"]).reshape(16, 9, 9)
    alone = payload.decode(payload.encode(stack.reshape(16, 9, 9)[held], budget))["matrices"]
    np.testing.assert_array_equal(slices[held].numpy(), alone)  # the same numbers as encoding those slices alone
    others = [s for s in range(16) if s not in held]
    assert not slices[others].any()
    with pytest.raises(ValueError, match="increasing indices below 16"):
        payload.encode(stack, budget, [3, 1])


@pytest.mark.parametrize("signed", [False, True], ids=["weights", "signed"])
@pytest.mark.parametrize("budget", [8_000, 20_800, 132_800])  # k = 1, 5, 40 (5 slices of 160 rows)
def test_a_layer_kept_as_its_row_tops_encodes_with_the_bytes_of_its_rows(budget, signed):
    """A long input's shown layer too large to keep is kept as its rows' tops (payload.RowTops): the top-k envelope
    made from them is the one its rows give, byte for byte (ties among zeros included), and its rows are never
    read; a k beyond the tops (a budget with room for more edges) reads the rows. Non-negative rows (attention
    weights) are ranked without an |x| copy, signed ones by magnitude: both as the rows give them."""
    g = torch.Generator().manual_seed(7)
    n = 5 * payload.TOPS
    stack = torch.rand(3, 4, n, n, generator=g).tril()  # causal rows: most entries tie at zero
    stack[:, :, :, 5] = stack[:, :, :, 6]  # ties among the largest too
    if signed:
        stack[..., ::3] *= -1  # and ties in magnitude between entries of opposite signs
    means = stack.mean(1, keepdim=True)
    tops = payload.RowTops(4, n, n, torch.float32)
    for head in range(4):
        tops.set(head, stack[1, head])
    read: list[int] = []

    class Heads:  # layer 1 kept as its tops, the others as rows
        shape, dtype = stack.shape, stack.dtype

        def dim(self):
            return 4

        def tops(self, layer, make=False):
            return tops if layer == 1 else None

        def __getitem__(self, layer):
            read.append(layer)
            return stack[layer]

    held = [5, 6, 7, 8, 14]  # layer 1's heads and layer 2's mean (5 slices a layer)
    blob = payload.encode([Heads(), means], budget, held)
    k = payload.decode(blob)["k"]
    assert blob == payload.encode([stack, means], budget, held) and payload.decode(blob)["layout"] == "topk"
    assert (read == [1]) == (k > payload.TOPS) and k in (1, 5, 40)


def test_committed_widget_state_fixture_is_current():
    committed = json.loads((FIXTURES / "widget_state.json").read_text())
    assert committed == json.loads(json.dumps(widget_state(synthetic_widget()))), "run python tests/payload_fixtures.py"


def test_committed_display_fixture_is_current():
    committed = json.loads((FIXTURES / "display_tokens.json").read_text())
    assert committed == json.loads(json.dumps(display_tokens())), "run python tests/payload_fixtures.py"


@pytest.mark.parametrize("budget", [10**9, 20_000, 3_000])  # dense, top-k with k = 5, top-k with k = 1
def test_the_bytes_do_not_depend_on_how_many_rows_are_encoded_at_a_time(monkeypatch, budget):
    """Rows are converted and encoded a chunk at a time (payload.CHUNK_ENTRIES); each row alone, so the envelope is
    the same for any chunk size, ties among a causal row's zeros included."""
    g = torch.Generator().manual_seed(3)
    causal = torch.rand(3, 6, 40, 40, generator=g).tril()
    stacks = [
        causal / causal.sum(-1, keepdim=True),
        causal - 0.3,
        causal * (torch.rand(3, 6, 40, 1, generator=g) > 0.8),
    ]
    whole = [payload.encode(stack, budget) for stack in stacks]
    monkeypatch.setattr(payload, "CHUNK_ENTRIES", 7 * 40)  # seven rows at a time, the last chunk shorter
    assert [payload.encode(stack, budget) for stack in stacks] == whole
    layouts = [payload.decode(blob)["layout"] for blob in whole]
    assert layouts[:2] == (["dense", "dense"] if budget > 10**6 else ["topk", "topk"]), layouts


@pytest.mark.parametrize("budget", [10**9, 20_000, 3_000])
@pytest.mark.parametrize("chunk_rows", [7, 40 * 9])  # chunks that cross the parts' borders, and whole layers
def test_parts_encode_as_their_join_without_making_it(monkeypatch, budget, chunk_rows):
    """A per-head method's data arrives as its parts (heads, mean, max; methods.heads.PerHead) and is read as the
    rows of their join along dim 1: the same bytes as the joined tensor, in any dtype mix of the parts."""
    from attn_widget.methods.heads import PerHead, joined, per_head

    g = torch.Generator().manual_seed(4)
    heads = torch.rand(3, 5, 40, 40, generator=g).tril()
    heads = heads / heads.sum(-1, keepdim=True)
    signed = PerHead(heads - 0.02, heads.mean(1, keepdim=True).double(), heads.amax(1, keepdim=True))
    for parts in (per_head(heads), signed):
        whole = payload.encode(joined(parts), budget)
        monkeypatch.setattr(payload, "CHUNK_ENTRIES", chunk_rows * 40)
        assert payload.encode(parts, budget) == whole
        monkeypatch.undo()
    with pytest.raises(ValueError, match="parts must be"):
        payload.encode((heads, heads[:, :, :3]))


@pytest.mark.parametrize("chunk_rows", [7, 40 * 4])  # chunks that cross the layers' borders, and whole layers
def test_held_layers_encode_as_the_whole_stack_reading_only_what_is_held(monkeypatch, chunk_rows):
    """A deferred method's data (payload.HeldLayers: its computed layers and a pinned token's row in others, the
    rest zero) encodes to the bytes of the whole stack made with zeros, in every layout, reading the held layers
    only. Signed values too (a deferred method may be signed)."""
    g = torch.Generator().manual_seed(5)
    matrices = [torch.rand(40, 40, generator=g, dtype=torch.float64).tril(), torch.rand(40, 40, generator=g) - 0.4]
    rows = {(0, 17): torch.rand(40, generator=g, dtype=torch.float64), (2, 5): torch.rand(40, generator=g) * 0.01}
    monkeypatch.setattr(payload, "CHUNK_ENTRIES", chunk_rows * 40)
    layouts = set()
    for held_layers in ([1, 3], [0, 1, 3, 4]):
        layers = {layer: matrices[k % 2] for k, layer in enumerate(held_layers)}
        whole = torch.zeros(5, 40, 40, dtype=torch.float64)
        for layer, matrix in layers.items():
            whole[layer] = matrix
        for (layer, row), values in rows.items():
            if layer not in layers:
                whole[layer, row] = values.double()
        read = []

        def reading(layer: int, layers=layers, read=read) -> torch.Tensor:
            read.append(layer)
            return layers[layer]

        held = payload.HeldLayers((5, 40, 40), held_layers[::-1], reading)
        held.rows.update(rows)
        for budget in (10**9, 20_000, 3_000):  # all rows, or top-k with k = 5, with k = 1
            blob = payload.encode(held, budget)
            assert blob == payload.encode(whole, budget), (held_layers, budget)
            layouts.add(payload.decode(blob)["layout"])
        assert set(read) == set(held_layers)
        assert all(torch.equal(held[layer], whole[layer]) for layer in range(5))
    assert layouts == {"dense", "rows", "topk"}


def test_row_tops_of_short_rows_hold_the_rows_themselves():
    """Rows no longer than TOPS keep every entry in their tops: a part kept so gives its rows back exactly (encoded
    dense without reading it again), signed and with ties (a causal row's zeros) included."""
    g = torch.Generator().manual_seed(6)
    matrix = torch.rand(2, 12, 12, generator=g).tril() - 0.2 * torch.eye(12)
    tops = payload.RowTops(2, 12, 12, matrix.dtype)
    for index in range(2):
        tops.set(index, matrix[index])
    assert tops.k == 12 and torch.equal(tops.whole(0, 24), matrix.reshape(24, 12))
    assert torch.equal(tops.whole(20, 99), matrix.reshape(24, 12)[20:])  # a stop past the end, as in a slice
