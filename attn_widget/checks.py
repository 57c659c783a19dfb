"""What the widget's state may hold: one check per setting, shared by the trait validators,
``to_frame`` and the handler of the front end's messages.

Each check returns the value (as the type the widget stores) or raises ``ValueError`` or
``TypeError`` with a message that says what is wrong and what is allowed.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

MEAN_HEAD = -1
MAX_HEAD = -2
SIDES = ("source", "target")
ATTRIBUTION_STATUSES = ("running", "done", "error")


def integer(value, name: str) -> int:
    """An integer (numpy's included); not a bool, a float or a string."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer; got {value!r}.")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer; got {value!r}.") from None


def layer(value, n_layers: int, defined: tuple[str, list[int]] | None = None) -> int:
    """defined: the selected method's label and the layers it exists in, when not every layer."""
    value = integer(value, "layer")
    if not 1 <= value <= n_layers:
        raise ValueError(f"layer must be between 1 and {n_layers} (as displayed); got {value}.")
    if defined is not None and value not in defined[1]:
        label, layers = defined
        raise ValueError(
            f"{label} exists in layers {layers[0]} to {layers[-1]} only; got layer {value}. "
            "Choose one of those, or another method first."
        )
    return value


def head(value, n_heads: int) -> int:
    value = integer(value, "head")
    if not MAX_HEAD <= value < n_heads:
        raise ValueError(
            f"head must be 0..{n_heads - 1}, {MEAN_HEAD} for the mean or {MAX_HEAD} for the max; got {value}."
        )
    return value


def choice(name: str, value, choices: Sequence):
    if value not in choices:
        listed = ", ".join(map(repr, choices[:-1])) + f" or {choices[-1]!r}"
        raise ValueError(f"{name} must be {listed}; got {value!r}.")
    return value


def method(value, ids: Sequence[str]) -> str:
    if value not in ids:
        raise ValueError(f"method must be one of {list(ids)}; got {value!r}.")
    return value


def threshold(value: float) -> float:
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"threshold must be a weight >= 0 (a finite number); got {value}.")
    return value


def binarize_threshold(value: float) -> float:
    if not 0 <= value < 1:
        raise ValueError(f"binarize_threshold must be in [0, 1); got {value}.")
    return value


def top_k(value: int) -> int:
    if value < 0:
        raise ValueError(f"top_k must be 0 (all edges) or more; got {value}.")
    return value


def window(value: Sequence[int], n_tokens: int) -> list[int]:
    """``[first row 0..n-1, rows >= 0]``, two whole numbers (not bools)."""
    first, rows = value
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    if not (whole and 0 <= first < n_tokens and rows >= 0):
        raise ValueError(f"window must be [first row 0..{n_tokens - 1}, rows >= 0]; got {list(value)}.")
    return list(value)


def selected(value: dict, n_tokens: int, n_layers: int) -> dict:
    """``{}``, ``{"side": "source" | "target", "index": i}`` or ``{"layer": 0..L, "index": i}``, i in 0..n-1."""
    if value == {}:
        return value
    key, places = ("side", SIDES) if "side" in value else ("layer", range(n_layers + 1))
    try:
        index = integer(value["index"], "index")
        place = value[key] if key == "side" else integer(value[key], key)
        if set(value) == {key, "index"} and 0 <= index < n_tokens and place in places:
            return {key: place, "index": index}
    except (KeyError, TypeError):
        pass
    raise ValueError(
        f"selected must be {{}} (nothing pinned), {{'side': 'source' or 'target', 'index': 0..{n_tokens - 1}}} "
        f"or {{'layer': 0..{n_layers}, 'index': 0..{n_tokens - 1}}}; got {value!r}."
    )


def target(value: str, ids: Sequence[str]) -> str:
    if value != "" and value not in ids:
        raise ValueError(
            f"target must be '' or one of the target ids {list(ids)} (add one with set_target); got {value!r}."
        )
    return value


def targets(value: list, n_tokens: int) -> list:
    """``[{id, label, position}]``: id and label strings, position a token row 0..n-1 or None (all rows)."""
    for i, entry in enumerate(value):
        if not (isinstance(entry.get("id"), str) and isinstance(entry.get("label"), str)):
            raise ValueError(f"targets[{i}] needs an 'id' and a 'label', both strings; got {entry!r}.")
        row = entry.get("position")
        if row is not None and not (isinstance(row, int) and not isinstance(row, bool) and 0 <= row < n_tokens):
            raise ValueError(f"targets[{i}]['position'] must be a token row 0..{n_tokens - 1} or None; got {row!r}.")
    return serialisable(value, "targets")


def attribution_data(value: dict) -> dict:
    """``{}`` or ``{target, method, status, ...}``: status 'running' (done, total), 'done' (values:
    an envelope; warning: an optional plain string) or 'error' (message)."""
    if value == {}:
        return value
    status = value.get("status")
    if status not in ATTRIBUTION_STATUSES:
        raise ValueError(f"attribution_data['status'] must be one of {list(ATTRIBUTION_STATUSES)}; got {status!r}.")
    if status == "done" and not isinstance(value.get("values"), (bytes, memoryview)):
        raise ValueError("attribution_data with status 'done' needs its 'values' as a payload envelope (bytes).")
    for key in ("message", "warning"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise ValueError(f"attribution_data[{key!r}] must be a plain string; got {type(value[key]).__name__}.")
    return serialisable(value, "attribution_data")


def image(value: dict, n_tokens: int, max_side: int) -> dict:
    """``{}`` (text) or ``{"rgb": h·w·3 bytes, "size": [h, w] (1..max_side), "grid": [rows, cols],
    "prefix": p}`` with ``p + rows·cols`` the number of tokens."""
    if value == {}:
        return value
    if set(value) != {"rgb", "size", "grid", "prefix"}:
        raise ValueError(f"image must be {{}} or have the keys rgb, size, grid and prefix; got {sorted(value)}.")
    rgb, size, grid, prefix = value["rgb"], value["size"], value["grid"], value["prefix"]
    pairs = [list(p) for p in (size, grid) if isinstance(p, (list, tuple)) and len(p) == 2]
    if len(pairs) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for p in pairs for v in p):
        raise ValueError(f"image size and grid must be pairs of whole numbers > 0; got {size!r} and {grid!r}.")
    (height, width), (rows, cols) = pairs
    if max(height, width) > max_side:
        raise ValueError(f"image size must be at most {max_side} pixels a side (shrink it first); got {size}.")
    if not isinstance(rgb, (bytes, memoryview)) or len(rgb) != height * width * 3:
        got = len(rgb) if isinstance(rgb, (bytes, memoryview)) else type(rgb).__name__
        raise ValueError(f"image rgb must be {height}×{width}×3 = {height * width * 3} bytes (uint8 RGB); got {got}.")
    if not isinstance(prefix, int) or isinstance(prefix, bool) or prefix < 0 or prefix + rows * cols != n_tokens:
        raise ValueError(
            f"image prefix ({prefix!r}) plus its {rows}×{cols} patches must be the {n_tokens} tokens; "
            "make a new AttentionWidget(model, image)."
        )
    return {"rgb": bytes(rgb), "size": [height, width], "grid": [rows, cols], "prefix": prefix}


def serialisable(value, name: str):
    """Refuse what has no JSON form (NaN, infinities) or cannot be sent as UTF-8 (lone surrogates)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{name} is {value}: NaN and infinite numbers cannot be shown or saved; use a finite number.")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                f"{name} holds a lone surrogate: {value!r}; pass text through attn_widget.text.display_token."
            ) from None
    if isinstance(value, dict):
        for key, item in value.items():
            serialisable(item, f"{name}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            serialisable(item, f"{name}[{i}]")
    return value


def compute_request(content: dict, ids: Sequence[str], n_layers: int) -> tuple[str, list[int]]:
    """A front end's ``{"type": "compute", "method": id, "layers": [1..L, ...]}`` as (method, layers)."""
    layers = content.get("layers")
    if not isinstance(layers, list) or not layers:
        raise ValueError(f"compute needs 'layers', a list of layer numbers 1..{n_layers}; got {layers!r}.")
    try:
        return method(content.get("method"), ids), [layer(number, n_layers) for number in layers]
    except TypeError as error:
        raise ValueError(str(error)) from None


def compare_method(value: str, shown: dict, methods: Sequence[dict], token_scores: Sequence[str]) -> str:
    """'' (off) or the id of a method drawn on the same graph as ``shown`` (the selected method's meta):
    both cumulative (edges from the input tokens) or both per layer, and defined in the same layers."""
    if value == "":
        return value
    metas = {m["id"]: m for m in methods}
    if value in token_scores:
        raise ValueError(
            f"compare_method {value!r} is a token-score method (one number per token, not a graph); show it with "
            f"attribution={value!r}, or compare with one of {list(metas)}."
        )
    if value not in metas:
        raise ValueError(f"compare_method must be '' (off) or one of {list(metas)}; got {value!r}.")
    other = metas[value]
    if not comparable(other, shown):
        alike = [m["id"] for m in methods if comparable(m, shown)]
        raise ValueError(
            f"compare_method {value!r} cannot be compared with method {shown['id']!r}: {_graph_of(other)}, "
            f"{_graph_of(shown)}; choose one of {alike}, or another method first."
        )
    return value


def comparable(a: dict, b: dict) -> bool:
    """Two methods' metas describe the same graph: the same sources and the same layers."""
    return a["cumulative"] == b["cumulative"] and a.get("layers") == b.get("layers")


def _graph_of(meta: dict) -> str:
    """What a method's edges join, in words, for a refusal."""
    sources = "the input tokens" if meta["cumulative"] else "the layer before"
    layers = meta.get("layers")
    where = f" in layers {layers[0]} to {layers[-1]}" if layers else " in every layer"
    return f"{meta['id']!r} draws edges from {sources}{where}"
