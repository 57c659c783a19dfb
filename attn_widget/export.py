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

_STATIC = pathlib.Path(__file__).parent / "static"


def widget_state(widget) -> dict:
    """The widget's own synced traits, binary values (at any depth) as ``{"base64": ...}``."""
    from .widget import AttentionWidget

    def encode(value):
        if isinstance(value, (bytes, memoryview)):
            return {"base64": base64.b64encode(bytes(value)).decode()}
        if isinstance(value, dict):
            return {key: encode(item) for key, item in value.items()}
        if isinstance(value, list):
            return [encode(item) for item in value]
        return value

    own = AttentionWidget.class_own_traits(sync=True)
    return {name: encode(value) for name, value in widget.get_state(key=list(own)).items()}


def _script_json(data) -> str:
    """JSON that can sit inside <script>: no '<', '>' or '&' survives as itself."""
    text = json.dumps(data, separators=(",", ":"))
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
        title=html.escape(title or f"attn_widget: {widget.model_name}"),
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
    from .catalog import view_method

    return {
        meta["id"]: view_method(meta["id"]).values(widget.analysis, widget.view_settings)[0].numpy()
        for meta in widget.methods
    }


def to_frame(widget, method: str | None = None, layer: int | None = None, head: int | None = None):
    """One slice as a pandas DataFrame: rows = receiving tokens, columns = source tokens.

    Defaults to what the view shows (``widget.method``, ``widget.layer``, ``widget.head``).
    """
    import pandas as pd

    method = method or widget.method
    layer = layer or widget.layer
    head = widget.head if head is None else head
    from .catalog import view_method

    if method not in [meta["id"] for meta in widget.methods]:
        raise KeyError(method)
    matrix = view_method(method).values(widget.analysis, widget.view_settings)[0][layer - 1].numpy()
    if matrix.ndim == 3:  # per head: heads, then mean, then max
        matrix = matrix[head if head >= 0 else (widget.n_heads if head == -1 else widget.n_heads + 1)]
    labels = [f"{i}: {token}" for i, token in enumerate(widget.tokens)]
    return pd.DataFrame(matrix, index=labels, columns=labels)
