"""``plots.heatmap_figure``: every matrix entry is drawn once, at its row (row 0 at the top) and column, and
labels may repeat; a wrong number of labels is refused."""

from __future__ import annotations

import numpy as np
import pytest
import torch

pytest.importorskip("bokeh")

from attn_widget.plots import heatmap_figure  # noqa: E402


def test_cells_are_the_matrix_with_row_0_at_the_top():
    matrix = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    plot = heatmap_figure(matrix, row_labels=["the", "the"], column_labels=["a", "b", "a"])
    data = plot.renderers[0].data_source.data
    drawn = np.full((2, 3), np.nan)
    for x, y, value in zip(data["x"], data["y"], data["value"], strict=True):
        drawn[1 - y, x] = value
    np.testing.assert_array_equal(drawn, matrix.numpy())
    assert list(data["row"]) == ["the"] * 6 and list(data["column"]) == ["a", "b", "a"] * 2
    assert plot.yaxis[0].major_label_overrides == {1: "the", 0: "the"}


def test_wrong_labels_or_shape_are_refused():
    with pytest.raises(ValueError, match="one label per row"):
        heatmap_figure(np.zeros((2, 3)), row_labels=["x"])
    with pytest.raises(ValueError, match="matrix"):
        heatmap_figure(np.zeros(3))


def test_the_correlation_legend_sits_outside_the_plot_area():
    import pandas as pd

    from attn_widget.plots import correlation_figure

    rows = [
        {"method": m, "reference": "blank_out", "layer": layer, "rho_mean": 0.1 * layer, "rho_std": 0.05}
        for m in ("raw", "rollout", "flow")
        for layer in (1, 2, 3)
    ]
    plot = correlation_figure(pd.DataFrame(rows))
    legends = [item for item in plot.right if type(item).__name__ == "Legend"]
    assert len(legends) == 1 and not [item for item in plot.center if type(item).__name__ == "Legend"]
    assert [item.label["value"] for item in legends[0].items] == ["raw", "rollout", "flow"]
