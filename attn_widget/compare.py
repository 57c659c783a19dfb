"""Rank correlations between attention-derived methods and gradient or perturbation methods
(methods.md section 8; the protocol of Abnar & Zuidema's Tables 1-3).

For one text and target: take row t of every attention-derived matrix at every layer (for
decoders only the tokens j <= t; the mean of all rows for targets that pool positions) and the per-token vector of every reference method, and
compute Spearman's rho (average ranks for ties). Attention-derived scores are
non-negative, so they are compared with the absolute value of signed references (as Abnar
did) and, in a second column, with the signed values. Cases where rho is undefined (a
constant vector, fewer than 3 tokens) are NaN and counted by ``summarise``.
"""

from __future__ import annotations

import math

import torch

from .analysis import Analysis, row_at

REFERENCES = ("saliency", "grad_x_input", "integrated_gradients", "blank_out", "attention_gradient", "gradient_rollout")


def attention_rows(analysis: Analysis, t: int | None) -> dict[str, torch.Tensor]:
    """Name → ``(L, n)``: row t of every attention-derived method at every layer (the mean of
    all rows when t is None, for targets that pool every position).

    Flow is computed for row t only. Effective rollout is included when the text is longer
    than the head dimension (otherwise it equals rollout).
    """

    def flow(receptive_field: str) -> torch.Tensor:
        if t is None:
            return row_at(analysis.flow(receptive_field=receptive_field, progress=False), None)
        return analysis.flow_rows(t, receptive_field=receptive_field)

    def row(matrices: torch.Tensor) -> torch.Tensor:
        return row_at(matrices, t)

    found = {
        "raw": row(analysis.raw()),
        "rollout": row(analysis.rollout(receptive_field="none")),
        "flow": flow("none"),
    }
    if analysis.causal:
        found["rollout (RF-B)"] = row(analysis.rollout(receptive_field="rf-b"))
        found["flow (RF-B)"] = flow("rf-b")
    if analysis.capture.values is not None and not analysis.effective_is_raw:
        found["effective rollout"] = row(analysis.effective_rollout(receptive_field="none"))
    return found


def correlations(analysis: Analysis, target=None, references=REFERENCES, include_special: bool = True):
    """One row per (attention method, layer, reference): Spearman's rho, pandas DataFrame.

    Columns: method, layer (1..L), reference, rho (vs |reference|), rho_signed, tokens.
    """
    pandas = _require("pandas")
    resolved = analysis.target(target)
    t = resolved.position
    keep = torch.arange(analysis.capture.n_tokens)
    if analysis.causal and t is not None:
        keep = keep[keep <= t]
    if not include_special:
        keep = keep[~analysis.capture.special[keep]]
    reference_scores = {
        name: analysis.attribution(name, resolved, **({"progress": False} if name == "integrated_gradients" else {}))
        for name in references
    }
    rows = []
    for method, layer_rows in attention_rows(analysis, t).items():
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
