"""``CorpusWidget``: a layers × heads grid of one statistic's mean over a corpus; clicking a head lists the
texts where it is most extreme, and choosing one opens the ``AttentionWidget`` on that text at that head.

Built from ipywidgets (the ``notebook`` extra); every text shown is a widget value, never markup: the sentences
are escaped into HTML widgets only because ipywidgets' Label never wraps and cuts what does not fit. Its words
follow ``lang`` through the front end's language tables (attn_widget/i18n.py); colours and labels inherit
the host's theme (ipywidgets' own theme variables), and every colour it sets itself is legible on a light
and a dark page alike (tests/browser/test_corpus_voila.py measures both).
"""

from __future__ import annotations

import html
import math

import traitlets as t

from ..i18n import tr
from ..widget_traits import language
from .result import CorpusResult, is_count
from .statistics import describe

# Viridis in nine equal bins of the shown range: low values dark purple, high values yellow.
_PALETTE = ("#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30", "#fde725")
_UNDEFINED = "#dddddd"
# The selected head: a ring in a colour viridis never uses, plainly visible on its dark and light ends.
_SELECTED = "4px solid #ff2a6d"
_CELL = "58px"


def _luminance(colour: str) -> float:
    """WCAG relative luminance of a ``#rrggbb`` colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def text_colour(background: str) -> str:
    """Black or white, whichever contrasts more with ``background`` (WCAG contrast ratio)."""
    light = _luminance(background)
    return "black" if (light + 0.05) / 0.05 >= 1.05 / (light + 0.05) else "white"


def _bin(value: float, low: float, high: float) -> int:
    """The palette index of ``value`` on the range ``low..high``."""
    share = 0.0 if high <= low else (value - low) / (high - low)
    return max(0, min(len(_PALETTE) - 1, int(share * len(_PALETTE))))


def decimals(low: float, high: float) -> int:
    """Decimals that tell the palette's bin edges on ``low..high`` apart (at least 2, at most 6)."""
    step = (high - low) / len(_PALETTE)
    return 2 if step <= 0 or not math.isfinite(step) else max(2, min(6, -math.floor(math.log10(step))))


def _colour(value: float, low: float, high: float) -> tuple[str, str]:
    """(background, text colour) of a cell on viridis; grey for undefined values."""
    background = _UNDEFINED if math.isnan(value) else _PALETTE[_bin(value, low, high)]
    return background, text_colour(background)


def _set_sentence(box, text: str) -> None:
    """Show ``text`` in ``box`` (an ipywidgets HTML) as plain text that wraps to the output's width: escaped, so
    nothing in it is read as markup."""
    box.value = html.escape(text, quote=False)


def _short(text: str, limit: int = 100) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis where cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CorpusWidget(t.HasTraits):
    """``CorpusWidget(result, model, tokenizer)``; display it in a notebook (``widget.box``, or the object itself).

    model, tokenizer: what opens a text in the ``AttentionWidget`` (the run's own model; None: the grid and
    the lists only). statistic: the one shown first. k: how many texts a head lists. lang: the language of
    its words, as the ``AttentionWidget``'s (which it passes on); assigning it later relabels everything.
    Layers are numbered from 1 and heads from 0, as in ``result.heads`` and the ``AttentionWidget``.
    """

    lang = language()

    def __init__(
        self,
        result: CorpusResult,
        model=None,
        tokenizer=None,
        statistic: str = "entropy",
        k: int = 10,
        lang: str = "en",
    ):
        import ipywidgets as w

        super().__init__(lang=lang)
        if result.shape is None:
            raise ValueError("The corpus run has no statistics (every text failed); there is nothing to show.")
        if not is_count(k) or k < 1:
            raise ValueError(f"k is how many texts a head lists, a positive integer; got {k!r}.")
        self.result, self.model, self.tokenizer, self.k = result, model, tokenizer, k
        self.layer: int | None = None
        self.head: int | None = None
        self.opened_at: tuple[int, int | None, int | None] | None = None  # (text index, layer, head) of the text opened
        names = [name for name in result.heads["statistic"].unique()]
        if statistic not in names:
            raise ValueError(f"{statistic!r} was not computed in this run; it has {', '.join(names)}.")
        self.statistic = w.Dropdown(options=names, value=statistic)
        self.order = w.ToggleButtons(options=[("largest", "largest"), ("smallest", "smallest")], value="largest")
        layers, heads = result.shape
        self.cells = [[self._cell(w, layer, head) for head in range(heads)] for layer in range(1, layers + 1)]
        self.layer_labels = [w.Label(str(layer)) for layer in range(1, layers + 1)]
        self.head_labels = [w.Label(str(head), layout=w.Layout(justify_content="center")) for head in range(heads)]
        self.corner = w.Label()
        grid = [[self.corner, *self.head_labels]] + [
            [label, *row] for label, row in zip(self.layer_labels, self.cells, strict=True)
        ]
        self.grid = w.GridBox(
            [item for row in grid for item in row],
            layout=w.Layout(grid_template_columns=f"90px repeat({heads}, 60px)"),
        )
        self.caption = w.HTML()  # what the colours mean; the sentences wrap (_set_sentence)
        # The key under the grid, in its columns: each colour's lowest mean, then the highest mean.
        self.swatches = [w.Label(layout=w.Layout(width=_CELL, justify_content="center")) for _ in _PALETTE]
        for swatch in self.swatches:
            swatch.add_class("attnw-corpus-key")
        self.highest = w.Label()
        self.key_name = w.Label()
        self.legend = w.GridBox(
            [self.key_name, *self.swatches, self.highest],
            layout=w.Layout(grid_template_columns=f"90px repeat({len(_PALETTE)}, 60px) auto"),
        )
        self.selection = w.HTML()
        self.texts = w.Select(options=[], rows=min(k, 10), layout=w.Layout(width="100%", max_width="800px"))
        self.opened = w.HTML()
        self.shown = w.VBox()
        self.box = w.VBox(
            [self.statistic, self.caption, self.grid, self.legend, self.selection, self.order, self.texts, self.opened]
            + [self.shown]
        )
        self.box.add_class("attnw-corpus")
        self.statistic.observe(lambda _change: self._paint(), "value")
        self.order.observe(lambda _change: self._list(), "value")
        self.texts.observe(lambda change: self.open(change["new"]), "value")
        self.observe(lambda _change: self._words(), "lang")
        self._words()

    def say(self, text: str, **params: object) -> str:
        """``text`` in the widget's language (attn_widget/i18n.py)."""
        return tr(self.lang, text, **params)

    def _words(self) -> None:
        """Every word in ``lang``: the fixed labels here, the rest as the grid, the list and the opened text
        are made again."""
        self.statistic.description = self.say("Statistic")
        self.order.description = self.say("Texts")
        chosen = self.order.value  # new options reset the choice: put it back
        self.order.options = [(self.say("largest"), "largest"), (self.say("smallest"), "smallest")]
        self.order.value = chosen
        self.corner.value = self.say("layer \\ head")
        self.key_name.value = self.say("colour from")
        if self.layer is None:
            _set_sentence(self.selection, self.say("Click a cell to list the texts where that head is most extreme."))
        self._paint()
        if self.opened_at is not None:
            self._opened()
            for shown in self.shown.children:
                shown.lang = self.lang

    def _cell(self, w, layer: int, head: int):
        cell = w.Button(layout=w.Layout(width=_CELL, height="30px", padding="0"))
        cell.add_class("attnw-corpus-cell")
        cell.add_class(f"attnw-corpus-l{layer}-h{head}")  # for tests and page scripts
        cell.on_click(lambda _button: self.select(layer, head))
        return cell

    def _paint(self) -> None:
        table = self.result.heads.query("statistic == @self.statistic.value")
        means = {(row.layer, row.head): (row.mean, row.std, row.count) for row in table.itertuples()}
        defined = [mean for mean, _, _ in means.values() if not math.isnan(mean)]
        low, high = (min(defined), max(defined)) if defined else (0.0, 1.0)
        digits = decimals(low, high)
        for layer, row in enumerate(self.cells, 1):
            for head, cell in enumerate(row):
                mean, std, count = means[(layer, head)]
                cell.description = "–" if math.isnan(mean) else f"{mean:.{digits}f}"
                cell.style.button_color, cell.style.text_color = _colour(mean, low, high)
                cell.tooltip = (
                    self.say("layer {layer}, head {head}: no text has a value", layer=layer, head=head)
                    if math.isnan(mean)
                    else self.say(
                        "layer {layer}, head {head}: {mean} ± {std} over {count} texts",
                        layer=layer,
                        head=head,
                        mean=f"{mean:.3f}",
                        std=f"{std:.3f}",
                        count=count,
                    )
                )
        for index, swatch in enumerate(self.swatches):
            swatch.value = f"{low + index * (high - low) / len(_PALETTE):.{digits}f}"
            swatch.style.background, swatch.style.text_color = _PALETTE[index], text_colour(_PALETTE[index])
        self.highest.value = self.say("to {value}", value=f"{high:.{digits}f}")
        what = self.say(describe(self.statistic.value))
        counts = table["count"]
        _set_sentence(
            self.caption,
            self.say(
                "Each cell: {what}, averaged over {count} texts (rows: layers, columns: heads)."
                if counts.min() == counts.max()
                else "Each cell: {what}, averaged over up to {count} texts (rows: layers, columns: heads).",
                what=what,
                count=counts.max(),
            ),
        )
        self._mark()
        if self.layer is not None:
            self._list()

    def _mark(self) -> None:
        """Ring the selected cell and bold its layer and head numbers."""
        for layer, row in enumerate(self.cells, 1):
            for head, cell in enumerate(row):
                chosen = (layer, head) == (self.layer, self.head)
                cell.layout.border = _SELECTED if chosen else ""
                cell.style.font_weight = "bold" if chosen else ""
        for number, label in enumerate(self.layer_labels, 1):
            label.style.font_weight = "bold" if number == self.layer else ""
        for number, label in enumerate(self.head_labels):
            label.style.font_weight = "bold" if number == self.head else ""

    def select(self, layer: int, head: int) -> None:
        """List the texts where head ``head`` of layer ``layer`` (heads from 0, layers from 1) is most extreme."""
        self.result.check_head(layer, head)
        self.layer, self.head = layer, head
        self._mark()
        self._list()

    def _list(self) -> None:
        if self.layer is None or self.head is None:  # the order changed before any head was chosen
            return
        largest = self.order.value == "largest"
        found = self.result.extreme(self.statistic.value, self.layer, self.head, self.k, largest=largest)
        _set_sentence(
            self.selection,
            self.say(
                "Selected: layer {layer}, head {head}. The {count} texts where its {statistic} is largest (each "
                "line: its value · the text); choose one to open it."
                if largest
                else "Selected: layer {layer}, head {head}. The {count} texts where its {statistic} is smallest (each "
                "line: its value · the text); choose one to open it.",
                layer=self.layer,
                head=self.head,
                count=len(found),
                statistic=self.statistic.value,
            ),
        )
        self.texts.value = None
        self.texts.options = [(f"{row.value:.3f} · {_short(row.text)}", int(row.index)) for row in found.itertuples()]
        shown = self.opened_at
        if shown is not None and shown[1:] == (self.layer, self.head) and shown[0] in found["index"].tolist():
            self.texts.value = shown[0]  # the text shown stays chosen in a new list

    def open(self, index: int | None) -> None:
        """Show the ``AttentionWidget`` on text ``index`` of the corpus, at the selected layer and head."""
        if index is None or self.model is None or (index, self.layer, self.head) == self.opened_at:
            return
        from ..widget import AttentionWidget

        text = self.result.texts.set_index("index").loc[index, "text"]
        self.opened_at = (index, self.layer, self.head)
        self._opened()
        self.shown.children = [
            AttentionWidget(self.model, text, self.tokenizer, layer=self.layer, head=self.head, lang=self.lang)
        ]

    def _opened(self) -> None:
        assert self.opened_at is not None
        index, layer, head = self.opened_at
        _set_sentence(
            self.opened, self.say("Text {index} at layer {layer}, head {head}.", index=index, layer=layer, head=head)
        )

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.box)
