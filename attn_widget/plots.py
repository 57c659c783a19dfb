"""Bokeh figures (method comparisons, heat maps), with inline resources (no CDN at run time)."""

from __future__ import annotations

from collections.abc import Sequence


def correlation_figure(summary, reference: str = "blank_out", title: str | None = None):
    """Mean Spearman's rho by layer, one line per attention method, against one reference.

    summary: the output of ``attn_widget.compare.summarise`` (or of ``correlations``, whose
    ``rho`` column is used directly). Show it with ``show_inline(figure)``.
    """
    from bokeh.models import ColumnDataSource, Range1d, Whisker  # type: ignore[attr-defined]
    from bokeh.palettes import Category10
    from bokeh.plotting import figure

    column = "rho_mean" if "rho_mean" in summary else "rho"
    data = summary[summary["reference"] == reference]
    plot = figure(
        title=title or f"Spearman's rho with {reference.replace('_', ' ')}, by layer",
        x_axis_label="layer",
        y_axis_label="Spearman's rho",
        width=860,
        height=380,
        y_range=Range1d(start=-1, end=1),
        tools="hover,save,reset",
        tooltips=[("method", "@method"), ("layer", "@layer"), ("rho", f"@{column}{{0.00}}")],
    )
    palette = Category10[10]
    for index, (method, rows) in enumerate(data.groupby("method", sort=False)):
        rows = rows.sort_values("layer")
        source = ColumnDataSource(rows)
        colour = palette[index % len(palette)]
        plot.line("layer", column, source=source, legend_label=method, color=colour, line_width=2)
        plot.scatter("layer", column, source=source, color=colour, size=6)
        if "rho_std" in rows:
            rows = rows.assign(
                lower=rows[column] - rows["rho_std"].fillna(0), upper=rows[column] + rows["rho_std"].fillna(0)
            )
            plot.add_layout(
                Whisker(source=ColumnDataSource(rows), base="layer", lower="lower", upper="upper", line_color=colour)
            )
    # Outside the plot area, on the right: inside, a dozen method names cover the lines.
    legend = plot.legend[0]
    plot.center.remove(legend)
    plot.add_layout(legend, "right")
    legend.location = "top_left"
    legend.click_policy = "hide"
    legend.label_text_font_size = "9pt"
    legend.spacing = 0
    return plot


def heatmap_figure(
    values,
    row_labels: list[str] | None = None,
    column_labels: list[str] | None = None,
    title: str = "",
    x_axis_label: str = "",
    y_axis_label: str = "",
    palette: str | Sequence[str] = "Viridis256",
    cell: int = 34,
    colour_bar: bool = True,
):
    """A heat map of a ``(rows, cols)`` matrix (tensor or array), row 0 at the top, one cell per entry.

    Labels may repeat (a word twice in a sentence): the axes are positions, labelled with them.
    ``palette``: a bokeh palette name or a list of colours, low values first. A hover tooltip gives each
    cell's row, column and value. Show it with ``show_inline(figure)``.
    """
    import numpy as np
    from bokeh.models import ColorBar, ColumnDataSource, LinearColorMapper, Range1d  # type: ignore[attr-defined]
    from bokeh.plotting import figure

    matrix = np.asarray(values.detach().cpu() if hasattr(values, "detach") else values, dtype=float)
    if matrix.ndim != 2:
        raise ValueError(f"heatmap_figure takes a (rows, cols) matrix; got shape {matrix.shape}.")
    rows, cols = matrix.shape
    row_labels = [str(r) for r in range(rows)] if row_labels is None else [str(x) for x in row_labels]
    column_labels = [str(c) for c in range(cols)] if column_labels is None else [str(x) for x in column_labels]
    if len(row_labels) != rows or len(column_labels) != cols:
        raise ValueError(
            f"{len(row_labels)} row and {len(column_labels)} column labels for a {rows}×{cols} matrix; "
            "pass one label per row and per column."
        )
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    source = ColumnDataSource(
        {
            "x": c.ravel(),
            "y": (rows - 1 - r).ravel(),
            "value": matrix.ravel(),
            "row": [row_labels[i] for i in r.ravel()],
            "column": [column_labels[j] for j in c.ravel()],
        }
    )
    mapper = LinearColorMapper(palette=palette, low=float(matrix.min()), high=float(matrix.max()))
    plot = figure(
        title=title,
        x_axis_label=x_axis_label,
        y_axis_label=y_axis_label,
        width=cols * cell + 160,
        height=rows * cell + 110,
        x_range=Range1d(start=-0.5, end=cols - 0.5),
        y_range=Range1d(start=-0.5, end=rows - 0.5),
        tools="hover,save",
        tooltips=[("row", "@row"), ("column", "@column"), ("value", "@value{0.000}")],
        toolbar_location=None,
    )
    plot.rect(
        "x", "y", width=1, height=1, source=source, fill_color={"field": "value", "transform": mapper}, line_color=None
    )
    plot.xaxis.ticker = list(range(cols))
    plot.xaxis.major_label_overrides = {j: column_labels[j] for j in range(cols)}
    plot.xaxis.major_label_orientation = 0.8 if max(map(len, column_labels)) > 2 else 0
    plot.yaxis.ticker = list(range(rows))
    plot.yaxis.major_label_overrides = {rows - 1 - i: row_labels[i] for i in range(rows)}
    plot.grid.visible = False
    if colour_bar:
        plot.add_layout(ColorBar(color_mapper=mapper, width=10), "right")
    return plot


def show_inline(plot) -> None:
    """Display a bokeh figure in a notebook with BokehJS inlined (works offline)."""
    from bokeh.io import output_notebook, show
    from bokeh.resources import INLINE

    output_notebook(resources=INLINE, hide_banner=True)
    show(plot)
