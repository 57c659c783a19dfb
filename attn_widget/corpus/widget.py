"""``CorpusWidget``: a layers × heads grid of one statistic's mean over a corpus; clicking a head lists the
texts where it is most extreme, and choosing one opens the ``AttentionWidget`` on that text at that head.

Built from ipywidgets (the ``notebook`` extra); every text shown is a widget value, never HTML.
"""

from __future__ import annotations

import math

from .result import CorpusResult
from .statistics import STATISTICS

_PALETTE = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")


def _colour(value: float, low: float, high: float) -> tuple[str, str]:
    """(background, text colour) of a cell on viridis; grey for undefined values."""
    if math.isnan(value):
        return "#dddddd", "black"
    share = 0.0 if high <= low else (value - low) / (high - low)
    index = min(len(_PALETTE) - 1, int(share * len(_PALETTE)))
    return _PALETTE[index], "black" if index >= 5 else "white"


class CorpusWidget:
    """``CorpusWidget(result, model, tokenizer)``; display it in a notebook (``widget.box``, or the object itself).

    model, tokenizer: what opens a text in the ``AttentionWidget`` (the run's own model; None: the grid and
    the lists only). statistic: the one shown first. k: how many texts a head lists.
    """

    def __init__(self, result: CorpusResult, model=None, tokenizer=None, statistic: str = "entropy", k: int = 10):
        import ipywidgets as w

        if result.shape is None:
            raise ValueError("The corpus run has no statistics (every text failed); there is nothing to show.")
        self.result, self.model, self.tokenizer, self.k = result, model, tokenizer, k
        self.layer: int | None = None
        self.head: int | None = None
        names = [name for name in result.heads["statistic"].unique()]
        if statistic not in names:
            raise ValueError(f"{statistic!r} was not computed in this run; it has {', '.join(names)}.")
        self.statistic = w.Dropdown(options=names, value=statistic, description="Statistic")
        self.order = w.ToggleButtons(options=["largest", "smallest"], value="largest", description="Texts")
        layers, heads = result.shape
        self.cells = [
            [w.Button(layout=w.Layout(width="58px", height="28px")) for _ in range(heads)] for _ in range(layers)
        ]
        for layer, row in enumerate(self.cells, 1):
            for head, cell in enumerate(row, 1):
                cell.on_click(lambda _button, layer=layer, head=head: self.select(layer, head))
        labels = [w.Label("layer \\ head")] + [w.Label(str(h)) for h in range(1, heads + 1)]
        grid = [labels] + [[w.Label(str(layer))] + row for layer, row in enumerate(self.cells, 1)]
        self.grid = w.GridBox(
            [item for row in grid for item in row],
            layout=w.Layout(grid_template_columns=f"90px repeat({heads}, 60px)"),
        )
        self.caption = w.Label()
        self.texts = w.Select(options=[], rows=min(k, 10), layout=w.Layout(width="100%"))
        self.shown = w.VBox()
        self.box = w.VBox([self.statistic, self.grid, self.caption, self.order, self.texts, self.shown])
        self.statistic.observe(lambda _change: self._paint(), "value")
        self.order.observe(lambda _change: self._list(), "value")
        self.texts.observe(lambda change: self.open(change["new"]), "value")
        self._paint()

    def _paint(self) -> None:
        table = self.result.heads.query("statistic == @self.statistic.value")
        means = {(row.layer, row.head): (row.mean, row.std, row.count) for row in table.itertuples()}
        defined = [mean for mean, _, _ in means.values() if not math.isnan(mean)]
        low, high = (min(defined), max(defined)) if defined else (0.0, 1.0)
        for layer, row in enumerate(self.cells, 1):
            for head, cell in enumerate(row, 1):
                mean, std, count = means[(layer, head)]
                cell.description = "–" if math.isnan(mean) else f"{mean:.2f}"
                cell.style.button_color, cell.style.text_color = _colour(mean, low, high)
                cell.tooltip = f"layer {layer}, head {head}: {mean:.3f} ± {std:.3f} over {count} texts"
        what = STATISTICS.get(self.statistic.value, (None, "head importance |∂y/∂ξ_h|"))[1]
        self.caption.value = f"Mean {what}. Click a head to list its most extreme texts."
        if self.layer is not None:
            self._list()

    def select(self, layer: int, head: int) -> None:
        """List the texts where head ``head`` of layer ``layer`` (both from 1) is most extreme."""
        self.layer, self.head = layer, head
        self._list()

    def _list(self) -> None:
        assert self.layer is not None and self.head is not None
        found = self.result.extreme(
            self.statistic.value, self.layer, self.head, self.k, largest=self.order.value == "largest"
        )
        self.caption.value = (
            f"Layer {self.layer}, head {self.head}: the {len(found)} texts of {self.order.value} value."
        )
        self.texts.value = None
        self.texts.options = [(f"{row.value:.3f} · {row.text[:100]}", int(row.index)) for row in found.itertuples()]

    def open(self, index: int | None) -> None:
        """Show the ``AttentionWidget`` on text ``index`` of the corpus, at the selected layer and head."""
        if index is None or self.model is None:
            return
        from ..widget import AttentionWidget

        text = self.result.texts.set_index("index").loc[index, "text"]
        head = None if self.head is None else self.head - 1  # the widget counts heads from 0
        self.shown.children = [AttentionWidget(self.model, text, self.tokenizer, layer=self.layer, head=head)]

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.box)
