"""What needs a target and a backward pass, per text through the single-text path: head importance
(Michel et al. 2019) and the agreement of attention and mixing methods with gradient references
(the compare protocol of ``attn_widget.compare``, per text; means over texts in ``CorpusResult``).

Head importance: with a mask ξ_h multiplying head h's output, ``∂y/∂ξ_h`` at ξ = 1 equals
``Σ_ij A_h,ij ∂y/∂A_h,ij`` (the head's output is linear in its attention weights, and ξ_h scales
both), so one backward pass of ``Analysis.gradients`` gives every head's importance; the absolute
value is kept, as Michel et al. average |∂L/∂ξ_h| over a data set.
"""

from __future__ import annotations

import math

from ..analysis import Analysis
from ..capture import capture
from ..compare import correlations
from ..methods import registry

SEPARATOR = "|"  # in column names: rho|method|layer|reference


def check_methods(methods) -> tuple[str, ...] | None:
    """None (no agreement), or the matrix method ids to compare ("all": every one with a comparison)."""
    if methods is None:
        return None
    known = [method.id for method in registry.matrix_methods() if method.compare is not None]
    if methods == "all":
        return tuple(known)
    names = (methods,) if isinstance(methods, str) else tuple(methods)
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"Unknown or uncompared method {unknown[0]!r}; choose from {', '.join(known)} or 'all'.")
    return names


def per_text(model, tokenizer, text: str, target, methods: tuple[str, ...] | None, references) -> dict[str, float]:
    """Column → value for one text: ``importance`` (L·H values, flattened layer-major; with ``layers`` and
    ``heads``) when a target is given, and ``rho|method|layer|reference`` / ``rho_signed|...`` for each
    compared method."""
    analysis = Analysis(capture(model, text, tokenizer), model=model, tokenizer=tokenizer)
    found: dict[str, float] = {}
    if target is not None:
        gradients = analysis.gradients(target)
        importance = (gradients.attentions.double() * gradients.attention_grad.double()).sum((-1, -2)).abs()
        found.update({f"importance{SEPARATOR}{i}": float(v) for i, v in enumerate(importance.flatten())})
        found["layers"], found["heads"] = importance.shape
    if methods is not None:
        exclude = tuple(method.id for method in registry.applicable(analysis) if method.id not in methods)
        frame = correlations(analysis, target, references, exclude=exclude)
        for row in frame.itertuples(index=False):
            key = SEPARATOR.join([row.method, str(row.layer), row.reference])
            found[f"rho{SEPARATOR}{key}"] = _float(row.rho)
            found[f"rho_signed{SEPARATOR}{key}"] = _float(row.rho_signed)
    return found


def _float(value) -> float:
    value = float(value)
    return value if not math.isinf(value) else math.nan
