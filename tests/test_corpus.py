"""Corpus analysis in this process: statistics against a plain re-implementation on the single-text
capture, padded batches against texts alone, bad rows, resuming, the summary tables, head importance
against an explicit head mask, and agreement against the compare protocol text by text."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
import torch
from test_model_state import assert_unchanged, awkward_model, snapshot
from tiny_models import tiny_model

from attn_widget import analyze, targets
from attn_widget.compare import correlations, summarise
from attn_widget.corpus import STATISTICS, analyze_corpus
from attn_widget.methods import registry
from attn_widget.models import find_sites

pytest.importorskip("pyarrow")
pandas = pytest.importorskip("pandas")

TEXTS = [
    "the cat sat on the mat",
    "a dog ran",
    "the big red house was very big and the small cat ran to it quickly",
    "it",
    "the the cat the",
    "blue and red and blue",
    "the dog sat on the big mat and the cat ran to the small red house very slowly",
]


def plain_statistics(attentions: torch.Tensor, special: torch.Tensor, ids: torch.Tensor) -> dict[str, np.ndarray]:
    """The definitions of ``attn_widget.corpus.statistics``, one query row at a time: name → (L, H)."""
    attentions = attentions.double()
    n = attentions.shape[-1]
    rows: dict[str, list] = {name: [] for name in STATISTICS}
    for i in range(n):
        a = attentions[..., i, :]  # (L, H, n)
        rows["entropy"].append(-(a * torch.where(a > 0, a.log(), 0.0)).sum(-1))
        rows["first_token"].append(a[..., 0])
        rows["special_tokens"].append(a[..., special].sum(-1))
        rows["self"].append(a[..., i])
        rows["same_token"].append(a[..., ids == ids[i]].sum(-1))
        rows["distance"].append(sum(a[..., j] * abs(i - j) for j in range(n)))
        if i > 0:
            rows["previous_token"].append(a[..., i - 1])
    found = {name: torch.stack(values).mean(0).numpy() for name, values in rows.items() if values}
    if not rows["previous_token"]:
        found["previous_token"] = np.full(attentions.shape[:2], np.nan)
    return found


@pytest.mark.parametrize("family", ["bert", "gpt2", "llama", "distilbert"])
def test_padded_batches_give_each_text_its_own_statistics(family, tokenizer):
    model = tiny_model(family)
    result = analyze_corpus(model, TEXTS, tokenizer, batch_size=4, progress=False)
    assert result.texts["error"].isna().all()
    assert result.shape == (3, 4)
    for i, text in enumerate(TEXTS):
        analysis = analyze(model, text, tokenizer)
        expected = plain_statistics(analysis.attentions, analysis.capture.special, analysis.capture.token_ids)
        for name in STATISTICS:
            np.testing.assert_allclose(result.values(name)[i], expected[name], atol=1e-6, rtol=0, err_msg=name)


@pytest.mark.model
def test_float32_minilm_batch_equals_text_alone(minilm):
    model, tokenizer = minilm
    long = " ".join(f"Sentence {i} says that the river rose again after the storm." for i in range(12))  # ~150 tokens
    texts = ["Attention is all you need.", "A longer sentence, with commas, words and a full stop at its end.", long]
    batched = analyze_corpus(model, texts, tokenizer, batch_size=3, progress=False)
    alone = analyze_corpus(model, texts, tokenizer, batch_size=1, progress=False)
    # float32: padding changes the matrix shapes and so the order of the sums; the mean distance runs to ~50
    # tokens, where 1e-6 is a few ulps (on an AVX-512 machine it differed by 3e-7 of itself). A padding leak
    # would differ by far more.
    for name in STATISTICS:
        np.testing.assert_allclose(batched.values(name), alone.values(name), atol=1e-6, rtol=2e-6, err_msg=name)


def test_bad_rows_are_reported_and_do_not_stop_the_run(tokenizer):
    model = tiny_model("bert")
    too_long = " ".join(["cat"] * 70)  # 72 tokens; the model has 64 positions
    texts = ["the cat sat", "", "   ", 42, None, too_long, "a \ud800 dog", b"the cat", "the dog ran"]
    result = analyze_corpus(model, texts, tokenizer, batch_size=4, progress=False)
    errors = result.texts["error"]
    assert errors.isna().tolist() == [True] + [False] * 7 + [True]
    assert "at most 64" in errors[5] and "empty" in errors[1] and "string" in errors[3] and "surrogate" in errors[6]
    values = result.values("entropy")
    assert np.isnan(values[1:8]).all() and not np.isnan(values[[0, 8]]).any()
    assert result.texts["text"].tolist()[:2] == ["the cat sat", ""]
    assert result.heads.query("statistic == 'entropy'")["count"].eq(2).all()


def test_texts_from_a_series_or_a_generator(tokenizer):
    model = tiny_model("gpt2")
    from_list = analyze_corpus(model, TEXTS, tokenizer, batch_size=3, progress=False)
    from_series = analyze_corpus(model, pandas.Series(TEXTS, index=range(10, 17)), tokenizer, progress=False)
    from_generator = analyze_corpus(model, (t for t in TEXTS), tokenizer, batch_size=2, progress=False)
    for other in (from_series, from_generator):
        assert other.texts["text"].tolist() == TEXTS
        np.testing.assert_allclose(other.values("distance"), from_list.values("distance"), atol=1e-12)
    with pytest.raises(TypeError, match="not one string"):
        analyze_corpus(model, "the cat", tokenizer)
    with pytest.raises(TypeError, match="one column"):
        analyze_corpus(model, pandas.DataFrame({"text": TEXTS}), tokenizer)
    with pytest.raises(ValueError, match="Unknown statistic 'entropie'"):
        analyze_corpus(model, TEXTS, tokenizer, stats=["entropie"])


def test_texts_from_a_hugging_face_dataset_column(tokenizer):
    datasets = pytest.importorskip("datasets")
    model = tiny_model("gpt2")
    from_list = analyze_corpus(model, TEXTS, tokenizer, batch_size=3, progress=False)
    table = datasets.Dataset.from_dict({"text": TEXTS, "label": list(range(len(TEXTS)))})
    streamed = datasets.IterableDataset.from_generator(lambda: ({"text": text} for text in TEXTS))
    for column in (table["text"], streamed["text"]):  # in memory (with a length) and streamed (without)
        found = analyze_corpus(model, column, tokenizer, batch_size=3, progress=False)
        assert found.texts["text"].tolist() == TEXTS
        np.testing.assert_allclose(found.values("entropy"), from_list.values("entropy"), atol=1e-12)
    for whole in (table, streamed):
        with pytest.raises(TypeError, match=r"one column of texts.*data\['text'\]"):
            analyze_corpus(model, whole, tokenizer)


def test_the_model_is_left_as_found(tokenizer):
    model = awkward_model("bert")
    before = snapshot(model)
    analyze_corpus(model, TEXTS, tokenizer, batch_size=4, progress=False)
    assert_unchanged(before, snapshot(model))


def _interrupted(texts, after: int):
    for i, text in enumerate(texts):
        if i == after:
            raise KeyboardInterrupt
        yield text


def test_an_interrupted_run_resumes_without_losing_or_repeating_texts(tokenizer, tmp_path):
    model = tiny_model("bert")
    texts = [TEXTS[i % len(TEXTS)] + " " + "cat " * (i % 5) for i in range(30)]
    with pytest.raises(KeyboardInterrupt):
        analyze_corpus(model, _interrupted(texts, 13), tokenizer, out=tmp_path, batch_size=4, progress=False)
    written = sorted(p.name for p in tmp_path.glob("part-*.parquet"))
    assert written == [f"part-{k:06d}.parquet" for k in range(3)]  # texts 0-11; the batch in flight is lost
    (tmp_path / ".part-000003.parquet.999-abc.tmp").write_bytes(b"half a shard")  # a crash mid-write
    times = {p: os.stat(p).st_mtime_ns for p in tmp_path.glob("part-*.parquet")}
    resumed = analyze_corpus(model, texts, tokenizer, out=tmp_path, batch_size=4, progress=False)
    assert all(os.stat(p).st_mtime_ns == t for p, t in times.items())  # kept, not recomputed
    assert resumed.texts["index"].tolist() == list(range(30))
    assert resumed.texts["text"].tolist() == texts
    whole = analyze_corpus(model, texts, tokenizer, batch_size=4, progress=False)
    pandas.testing.assert_frame_equal(resumed.heads, whole.heads)
    with pytest.raises(ValueError, match="batch_size"):
        analyze_corpus(model, texts, tokenizer, out=tmp_path, batch_size=5, progress=False)
    again = analyze_corpus(model, texts[:8], tokenizer, out=tmp_path, batch_size=4, resume=False, progress=False)
    assert len(again.texts) == 8


def test_heads_table_and_extremes_match_pandas(tokenizer):
    model = tiny_model("llama")
    texts = TEXTS + ["", "the cat"]
    result = analyze_corpus(model, texts, tokenizer, batch_size=3, progress=False)
    values = result.values("previous_token")  # (N, L, H); "it" has no previous token: NaN
    frame = pandas.DataFrame(
        [
            (layer + 1, head, values[i, layer, head])
            for i in range(len(texts))
            for layer in range(3)
            for head in range(4)
        ],
        columns=["layer", "head", "value"],
    )
    expected = frame.groupby(["layer", "head"])["value"].agg(["mean", "std", "count"]).reset_index()
    found = result.heads.query("statistic == 'previous_token'").reset_index(drop=True)
    np.testing.assert_allclose(found[["mean", "std"]], expected[["mean", "std"]], atol=1e-12)
    assert found["count"].tolist() == expected["count"].tolist() == [len(TEXTS) + 1] * 12  # all but the empty text
    top = result.extreme("distance", layer=2, head=2, k=3)
    order = np.argsort(-np.nan_to_num(result.values("distance")[:, 1, 2], nan=-np.inf), kind="stable")[:3]
    assert top["index"].tolist() == order.tolist()


def test_head_importance_is_the_gradient_of_a_head_mask(tokenizer):
    model = tiny_model("bert")
    target = targets.function(lambda outputs: outputs[0][:, 0, :5].sum(-1), description="first five of [CLS]")
    texts = TEXTS[:3]
    result = analyze_corpus(model, texts, tokenizer, stats=[], target=target, progress=False)
    importance = result.values("importance")
    for i, text in enumerate(texts):
        mask = torch.ones(3, 4, dtype=torch.float64, requires_grad=True)

        def masked(layer, mask=mask):
            def hook(_module, inputs):  # the heads' outputs (1, n, H·d_h), each head scaled by its mask
                context = inputs[0]
                return (context.unflatten(-1, (4, -1)) * mask[layer, :, None]).flatten(-2)

            return hook

        handles = [site.output.register_forward_pre_hook(masked(l)) for l, site in enumerate(find_sites(model))]
        try:
            y = target.fn(model(**tokenizer(text, return_tensors="pt"))).sum()
        finally:
            for handle in handles:
                handle.remove()
        (gradient,) = torch.autograd.grad(y, mask)
        np.testing.assert_allclose(importance[i], gradient.abs().numpy(), rtol=1e-8, atol=1e-10)


def test_a_text_whose_target_fails_keeps_its_statistics(tokenizer):
    model = tiny_model("bert")
    fifth = targets.function(lambda outputs: outputs[0][:, 4, :5].sum(-1), description="the fifth token")
    texts = ["the cat", "the cat sat on the mat", "the dog"]  # 4, 8 and 4 tokens: no fifth token in two
    result = analyze_corpus(model, texts, tokenizer, target=fifth, progress=False)
    errors = result.texts["error"]
    assert errors.isna().tolist() == [False, True, False]
    assert "statistics are kept" in errors[0] and "IndexError" in errors[0]
    assert not np.isnan(result.values("entropy")).any()
    importance = result.values("importance")
    assert np.isnan(importance[[0, 2]]).all() and not np.isnan(importance[1]).any()
    counts = result.heads.groupby("statistic")["count"].max()
    assert counts["entropy"] == 3 and counts["importance"] == 1


def test_agreement_averages_the_compare_protocol_over_texts(tokenizer):
    model = tiny_model("bert")
    target = targets.function(lambda outputs: outputs[0][:, 0, :5].sum(-1), description="first five of [CLS]")
    texts = TEXTS[:4]
    result = analyze_corpus(
        model, texts, tokenizer, stats=[], methods=["raw", "rollout"], target=target, references=["saliency"]
    )
    frames = []
    for text in texts:  # the compare protocol of one text, restricted to the same methods and reference
        analysis = analyze(model, text, tokenizer)
        others = tuple(m.id for m in registry.applicable(analysis) if m.id not in ("raw", "rollout"))
        frames.append(correlations(analysis, target, ["saliency"], exclude=others))
    expected = summarise(frames).sort_values(["method", "layer"]).reset_index(drop=True)
    found = result.agreement.sort_values(["method", "layer"]).reset_index(drop=True)
    np.testing.assert_allclose(found["rho_mean"], expected["rho_mean"], atol=1e-12)
    np.testing.assert_allclose(found["rho_std"], expected["rho_std"], atol=1e-12)
    assert found["undefined"].tolist() == expected["undefined"].tolist()
    assert not math.isnan(found["rho_mean"].iloc[0])
