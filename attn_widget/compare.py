"""Rank correlations between attention-derived methods and gradient or perturbation methods
(docs/methods.md §8; the protocol of Abnar & Zuidema's Tables 1-3).

For one text and target: take row t of every attention-derived matrix at every layer (for
decoders only the tokens j <= t; the mean of all rows for targets that pool positions) and the
per-token vector of every reference method, and
compute Spearman's rho (average ranks for ties). Attention-derived scores are
non-negative, so they are compared with the absolute value of signed references (as Abnar
did) and, in a second column, with the signed values. Cases where rho is undefined (a
constant vector, fewer than 3 tokens) are NaN and counted by ``summarise``.
"""

from __future__ import annotations

import math

import torch

from .methods import registry


def reference_ids(analysis) -> tuple[str, ...]:
    """The reference methods: every attribution method that applies to ``analysis``, in menu order."""
    return tuple(entry.id for entry in registry.applicable_attributions(analysis))


def attention_rows(analysis, t: int | None, exclude: tuple[str, ...] = ()) -> dict[str, torch.Tensor]:
    """Name → ``(L, n)``: row t of every compared matrix method at every layer (the mean of
    all rows when t is None, for targets that pool every position).

    The registry says which methods enter and how (``MatrixMethod.compare``): flow is computed
    for row t only; effective rollout is included when the text is longer than the head
    dimension (otherwise it equals rollout).
    """
    found = {}
    for method in registry.applicable(analysis):
        if method.id in exclude:
            continue
        if method.compare is not None and method.compare.applies(analysis):
            found[method.compare.name or method.id] = method.compare_rows(analysis, t)
    return found


def correlations(analysis, target=None, references=None, include_special: bool = True, exclude: tuple[str, ...] = ()):
    """One row per (attention method, layer, reference): Spearman's rho, pandas DataFrame.

    Columns: method, layer (1..L), reference, rho (vs |reference|), rho_signed, tokens.
    references: attribution method ids (default: every one that applies to the analysis).
    exclude: matrix method ids to leave out (e.g. ``("hidden_attribution",)``, the costliest).
    """
    pandas = _require("pandas")
    resolved = analysis.target(target)
    t = resolved.position
    keep = torch.arange(analysis.capture.n_tokens)
    if analysis.causal and t is not None:
        keep = keep[keep <= t]
    if not include_special:
        keep = keep[~analysis.capture.special[keep]]
    names = reference_ids(analysis) if references is None else references
    reference_scores = {name: _scores(analysis, name, resolved) for name in names}
    rows = []
    for method, layer_rows in attention_rows(analysis, t, exclude).items():
        for layer in range(layer_rows.shape[0]):
            scores = layer_rows[layer, keep]
            for name, reference in reference_scores.items():
                signed = reference[keep]
                rows.append(
                    {
                        "method": method,
                        "layer": layer + 1,
                        "reference": name,
                        "rho": spearman(scores, signed.abs()),
                        "rho_signed": spearman(scores, signed),
                        "tokens": len(keep),
                    }
                )
    return pandas.DataFrame(rows)


def _scores(analysis, name: str, target) -> torch.Tensor:
    """``(n,)`` scores of one reference, without a progress bar."""
    options = {"progress": False} if registry.attribution_method(name).progress else {}
    return analysis.attribution(name, target, **options)


def summarise(frames):
    """Mean ± std of rho over examples per (method, layer, reference), with the count of undefined cases."""
    pandas = _require("pandas")
    data = pandas.concat(frames, ignore_index=True)
    grouped = data.groupby(["method", "layer", "reference"], sort=False)
    return grouped.agg(
        rho_mean=("rho", "mean"),
        rho_std=("rho", "std"),
        rho_signed_mean=("rho_signed", "mean"),
        examples=("rho", "size"),
        undefined=("rho", lambda values: int(values.isna().sum())),
    ).reset_index()


def spearman(x: torch.Tensor, y: torch.Tensor) -> float:
    """Spearman's rho with average ranks for ties (scipy); NaN when undefined."""
    if len(x) < 3 or bool((x == x[0]).all()) or bool((y == y[0]).all()):
        return math.nan
    stats = _require("scipy.stats")
    return float(stats.spearmanr(x.double().numpy(), y.double().numpy()).statistic)


def _require(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"Comparisons need {module.split('.')[0]}: pip install 'attn_widget[compare]'.") from exc
