"""Exports: a self-contained interactive HTML file, and the numbers behind the view.

The HTML file inlines the widget's own ES module, its CSS and its state (binary data as
base64), and renders with an in-page model: it opens from disk, with no kernel and no
network. Everything that reaches the page is escaped so that token text stays text.
"""

from __future__ import annotations

import base64
import html
import json
import pathlib
import re

import numpy as np

from . import checks
from .methods.heads import joined, layer_of
from .text import display_token

_STATIC = pathlib.Path(__file__).parent / "static"


def widget_state(widget) -> dict:
    """The widget's own synced traits, binary values (at any depth) as ``{"base64": ...}``.

    Refuses (ValueError) a state that has no faithful JSON form: NaN, infinities, lone surrogates.
    """

    def encode(value):
        if isinstance(value, (bytes, memoryview)):
            return {"base64": base64.b64encode(bytes(value)).decode()}
        if isinstance(value, dict):
            return {key: encode(item) for key, item in value.items()}
        if isinstance(value, list):
            return [encode(item) for item in value]
        return value

    state = widget.get_state(key=widget.own_keys)
    try:
        checks.serialisable(state, "the widget's state")
    except ValueError as error:
        raise ValueError(f"Cannot export this widget: {error}") from None
    return {name: encode(value) for name, value in state.items()}


def _script_json(data) -> str:
    """JSON that can sit inside <script>: no '<', '>' or '&' survives as itself."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 16px; max-width: 1100px; }}
{css}
</style>
</head>
<body>
<div id="attnw-root"></div>
<script type="application/json" id="attnw-state">{state}</script>
<script type="text/plain" id="attnw-esm">{esm}</script>
<script type="module">
const source = document.getElementById("attnw-esm").textContent;
const url = URL.createObjectURL(new Blob([source], {{ type: "text/javascript" }}));
const {{ renderStandalone }} = await import(url);
const state = JSON.parse(document.getElementById("attnw-state").textContent);
window.attnWidget = renderStandalone(document.getElementById("attnw-root"), state);
</script>
</body>
</html>
"""


def inline_script(source: str) -> str:
    """Source text that can sit inside <script type="text/plain">: only "</script" would end it early."""
    return re.sub(r"</(script)", r"<\\/\1", source, flags=re.IGNORECASE)


def to_html(widget, path: str | pathlib.Path | None = None, title: str | None = None) -> str:
    """Write (and return) one self-contained interactive HTML file of the widget's current view."""
    state = {**widget_state(widget), "offline": True}
    esm = inline_script((_STATIC / "widget.js").read_text())
    page = _PAGE.format(
        title=html.escape(display_token(title or f"attn_widget: {widget.model_name}")),
        css=(_STATIC / "widget.css").read_text(),
        state=_script_json(state),
        esm=esm,
    )
    if path is not None:
        pathlib.Path(path).write_text(page, encoding="utf-8")
    return page


def to_numpy(widget) -> dict[str, np.ndarray]:
    """Exact values (not the quantised view data) of every method shown: ``{method id: array}``.

    Per-head methods are ``(L, H + 2, n, n)`` (each head, mean, max); the others ``(L, n, n)``.
    Methods computed on request contain the layers computed so far (others are zero).
    """
    return {
        meta["id"]: joined(widget.method_spec(meta["id"]).values(widget.analysis, widget.view_settings)[0]).numpy()
        for meta in widget.methods
    }


def to_frame(widget, method: str | None = None, layer: int | None = None, head: int | None = None):
    """One slice as a pandas DataFrame: rows = receiving tokens, columns = source tokens.

    method: a method id of ``widget.methods``; layer: 1..L; head: 0..H-1, -1 (mean) or -2 (max),
    for the per-head methods (raw, effective) only: the others are built on the head mean and
    accept no head but -1. Each defaults to what the view shows (``widget.method``, ``.layer``,
    ``.head``); an invalid one raises ValueError or TypeError. The frame's ``attrs`` name what it holds:
    ``method`` (the id), ``label`` (the method's name in the widget, e.g. "Rollout, receptive-field
    normalised") and ``layer``.
    """
    import pandas as pd

    method = checks.method(widget.method if method is None else method, [meta["id"] for meta in widget.methods])
    layer = checks.layer(widget.layer if layer is None else layer, widget.n_layers)
    spec = widget.method_spec(method)
    if head is not None:
        head = checks.head(head, widget.n_heads)
        if not spec.per_head and head != checks.MEAN_HEAD:
            raise ValueError(
                f"{method} is computed on the mean of the heads: leave head out (or pass {checks.MEAN_HEAD}); "
                f"got head={head}. Per-head methods: {[m['id'] for m in widget.methods if m['per_head']]}."
            )
    matrix = layer_of(spec.values(widget.analysis, widget.view_settings)[0], layer - 1).numpy()
    if spec.per_head:  # heads, then mean, then max
        head = widget.head if head is None else head
        matrix = matrix[head if head >= 0 else (widget.n_heads if head == checks.MEAN_HEAD else widget.n_heads + 1)]
    labels = [f"{i}: {token}" for i, token in enumerate(widget.tokens)]
    frame = pd.DataFrame(matrix, index=labels, columns=labels)
    frame.attrs.update(method=method, label=spec.label, layer=layer)
    return frame
