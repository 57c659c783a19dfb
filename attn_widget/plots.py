"""Bokeh figures of comparison results, with inline resources (no CDN at run time)."""

from __future__ import annotations


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
        width=640,
        height=360,
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
    plot.legend.location = "bottom_right"
    plot.legend.click_policy = "hide"
    return plot


def show_inline(plot) -> None:
    """Display a bokeh figure in a notebook with BokehJS inlined (works offline)."""
    from bokeh.io import output_notebook, show
    from bokeh.resources import INLINE

    output_notebook(resources=INLINE, hide_banner=True)
    show(plot)
